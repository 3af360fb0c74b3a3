package dynamo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// Webhooks (webhook.Store, docs/dynamodb.md):
//
//	subscription      WH / <id>                       data, secret, paused, reason, cursor, progress
//	delivery attempt  WHA#<id> / <fixed-width time>#<uuid>   doc
//
// Subscriptions are few (a bound per workspace), so they share one
// partition, read whole. A subscription's cursor is an event's ev_at (its
// time and id), read from the events index in order.
const (
	pkWebhooks        = "WH"
	pkAttemptsPrefix  = "WHA#"
	typeWebhook       = "webhook"
	typeAttempt       = "webhook_attempt"
	attrHookWorkspace = "wh_ws"
	attrHookData      = "wh_data"
	attrHookSecret    = "wh_secret"
	attrHookPaused    = "wh_paused"
	attrHookReason    = "wh_reason"
	attrHookCursor    = "wh_cursor"
	attrHookProgress  = "wh_progress"
)

// DefaultWebhookSettle is how old an event must be before a sender reads
// it here (WebhookSettle).
const DefaultWebhookSettle = 10 * time.Second

var _ webhook.Store = (*Store)(nil)

// webhookSettle is the settle window of this process's stores, in
// nanoseconds.
var webhookSettle atomic.Int64

func init() { webhookSettle.Store(int64(DefaultWebhookSettle)) }

// SetWebhookSettle changes how old an event must be before EventsAfter
// returns it. Events sort by the time their write took, not by when it
// committed, and the index they are read from is eventually consistent:
// an event younger than the window may still be joined by one that sorts
// before it, which a cursor already past it would skip. Tests shorten it.
func SetWebhookSettle(d time.Duration) { webhookSettle.Store(int64(d)) }

func hookKey(id string) map[string]types.AttributeValue { return key(pkWebhooks, id) }

// hookData is a subscription's unchanging part as stored.
type hookData struct {
	URL       string                `json:"url"`
	Events    []webhook.EventFilter `json:"events"`
	Inbox     string                `json:"inbox,omitempty"`
	Format    webhook.Format        `json:"format"`
	CreatedBy string                `json:"created_by"`
	CreatedAt time.Time             `json:"created_at"`
}

// CreateSubscription is one transaction: the request record, on the
// condition that no unexpired record holds its key, and the subscription
// (its id is new and random, so a resent write meets nothing but itself).
func (s *Store) CreateSubscription(ctx context.Context, sub webhook.Subscription, req ledger.Record) error {
	item, err := hookItem(sub)
	if err != nil {
		return err
	}
	now := req.CreatedAt
	var w writeAttempts
	for attempt := 0; attempt < maxAttempts; attempt++ {
		txid := newTxID()
		w.txids = append(w.txids, txid)
		rec, part, err := recordItems(req, txid)
		if err != nil {
			return err
		}
		cond, names, values := recordCondition(now)
		items := []types.TransactWriteItem{s.put(rec, cond, names, values, true), s.put(item, "", nil, nil, false)}
		if part != nil {
			items = append(items, s.put(part, "", nil, nil, false))
		}
		c, err := s.commit(ctx, items)
		switch {
		case err != nil:
			return err
		case c == nil:
			return nil
		case c.failedAt(0):
			verdict, old, err := s.existingRecord(ctx, req.Key, c.old[0], now, w)
			if err != nil {
				return err
			}
			switch verdict {
			case recordOurs:
				return nil
			case recordTaken:
				return &ledger.ExistsError{Record: *old}
			}
			continue // the record expired meanwhile: write again
		}
		if err := backoff(ctx, attempt); err != nil {
			return err
		}
	}
	return fmt.Errorf("dynamo: creating webhook %s kept conflicting after %d attempts; nothing was written by this call", sub.ID, maxAttempts)
}

// hookItem is a subscription's item.
func hookItem(sub webhook.Subscription) (map[string]types.AttributeValue, error) {
	data, err := json.Marshal(hookData{URL: sub.URL, Events: sub.Events, Inbox: sub.Inbox, Format: sub.Format, CreatedBy: sub.CreatedBy, CreatedAt: sub.CreatedAt.UTC()})
	if err != nil {
		return nil, err
	}
	progress, err := json.Marshal(sub.Progress)
	if err != nil {
		return nil, err
	}
	item := hookKey(sub.ID)
	item[attrType] = str(typeWebhook)
	item[attrHookWorkspace] = str(sub.Workspace)
	item[attrHookData] = str(string(data))
	if len(sub.SealedSecret) > 0 { // a subscription moved without its secret has none
		item[attrHookSecret] = &types.AttributeValueMemberB{Value: sub.SealedSecret}
	}
	item[attrHookPaused] = &types.AttributeValueMemberBOOL{Value: sub.Paused}
	item[attrHookReason] = str(sub.PausedReason)
	item[attrHookCursor] = str(sub.Progress.Cursor)
	item[attrHookProgress] = str(string(progress))
	return item, nil
}

// PutSubscription stores a moved subscription on the condition that
// nothing is under its id; otherwise AlreadyThere when the stored one is
// the same (webhook.SameTransferred), else Collision.
func (s *Store) PutSubscription(ctx context.Context, sub webhook.Subscription) (board.PutOutcome, error) {
	item, err := hookItem(sub)
	if err != nil {
		return 0, err
	}
	c, err := s.commit(ctx, []types.TransactWriteItem{s.put(item, "attribute_not_exists(#pk)", map[string]string{"#pk": attrPK}, nil, true)})
	switch {
	case err != nil:
		return 0, err
	case c == nil:
		return board.Added, nil
	}
	old := c.old[0]
	if len(old) == 0 {
		if old, err = s.getItem(ctx, hookKey(sub.ID)); err != nil {
			return 0, err
		}
	}
	have, err := decodeHook(old)
	if err != nil {
		return 0, err
	}
	if webhook.SameTransferred(have, sub) {
		return board.AlreadyThere, nil
	}
	return board.Collision, nil
}

func decodeHook(item map[string]types.AttributeValue) (webhook.Subscription, error) {
	sub := webhook.Subscription{ID: getS(item, attrSK), Workspace: getS(item, attrHookWorkspace), PausedReason: getS(item, attrHookReason)}
	var d hookData
	if err := json.Unmarshal([]byte(getS(item, attrHookData)), &d); err != nil {
		return sub, fmt.Errorf("dynamo: webhook %s: %w", sub.ID, err)
	}
	if err := json.Unmarshal([]byte(getS(item, attrHookProgress)), &sub.Progress); err != nil {
		return sub, fmt.Errorf("dynamo: webhook %s: %w", sub.ID, err)
	}
	if b, ok := item[attrHookSecret].(*types.AttributeValueMemberB); ok {
		sub.SealedSecret = b.Value
	}
	if b, ok := item[attrHookPaused].(*types.AttributeValueMemberBOOL); ok {
		sub.Paused = b.Value
	}
	sub.URL, sub.Events, sub.Inbox, sub.Format, sub.CreatedBy, sub.CreatedAt = d.URL, d.Events, d.Inbox, d.Format, d.CreatedBy, d.CreatedAt
	if sub.Events == nil {
		sub.Events = []webhook.EventFilter{}
	}
	sub.Progress.Cursor = getS(item, attrHookCursor)
	return sub, nil
}

// GetSubscription is one consistent GetItem.
func (s *Store) GetSubscription(ctx context.Context, id string) (webhook.Subscription, error) {
	item, err := s.getItem(ctx, hookKey(id))
	if err != nil {
		return webhook.Subscription{}, err
	}
	if item == nil {
		return webhook.Subscription{}, board.ErrNotFound
	}
	return decodeHook(item)
}

// ListSubscriptions reads the subscriptions' partition (consistent) and
// keeps the workspace's, oldest first.
func (s *Store) ListSubscriptions(ctx context.Context, workspace string) ([]webhook.Subscription, error) {
	items, err := s.queryAll(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pkWebhooks)},
		ConsistentRead:            aws.Bool(true),
	}, 0)
	if err != nil {
		return nil, err
	}
	var out []webhook.Subscription
	for _, item := range items {
		if workspace != "" && getS(item, attrHookWorkspace) != workspace {
			continue
		}
		sub, err := decodeHook(item)
		if err != nil {
			return nil, err
		}
		out = append(out, sub)
	}
	slices.SortStableFunc(out, func(a, b webhook.Subscription) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// updateHook runs an UpdateItem on a subscription that must exist.
func (s *Store) updateHook(ctx context.Context, id, set string, values map[string]types.AttributeValue, names map[string]string) error {
	names["#pk"] = attrPK
	done, err := s.exclusiveWrite(ctx)
	if err != nil {
		return err
	}
	defer done()
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(s.table), Key: hookKey(id),
		UpdateExpression: aws.String(set), ConditionExpression: aws.String("attribute_exists(#pk)"),
		ExpressionAttributeNames: names, ExpressionAttributeValues: values})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return board.ErrNotFound
	}
	return err
}

// SetPaused pauses or resumes; resuming clears the failures.
func (s *Store) SetPaused(ctx context.Context, id string, paused bool, reason string) error {
	names := map[string]string{"#p": attrHookPaused, "#r": attrHookReason}
	values := map[string]types.AttributeValue{":p": &types.AttributeValueMemberBOOL{Value: paused}, ":r": str(reason)}
	set := "SET #p = :p, #r = :r"
	if !paused {
		names["#g"] = attrHookProgress
		values[":g"] = str("{}")
		set += ", #g = :g"
	}
	return s.updateHook(ctx, id, set, values, names)
}

// SaveProgress stores the cursor and the failures.
func (s *Store) SaveProgress(ctx context.Context, id string, p webhook.Progress) error {
	progress, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return s.updateHook(ctx, id, "SET #c = :c, #g = :g",
		map[string]types.AttributeValue{":c": str(p.Cursor), ":g": str(string(progress))},
		map[string]string{"#c": attrHookCursor, "#g": attrHookProgress})
}

// DeleteSubscription deletes the subscription, then its log.
func (s *Store) DeleteSubscription(ctx context.Context, id string) error {
	done, err := s.exclusiveWrite(ctx)
	if err != nil {
		return err
	}
	out, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.table), Key: hookKey(id), ReturnValues: types.ReturnValueAllOld})
	done()
	if err != nil {
		return err
	}
	keys, err := s.attemptKeys(ctx, id, 0)
	if err != nil {
		return err
	}
	if err := s.deleteKeys(ctx, keys); err != nil {
		return err
	}
	if len(out.Attributes) == 0 {
		return board.ErrNotFound
	}
	return nil
}

// AddAttempt puts the attempt, then deletes what lies beyond the newest
// webhook.KeepAttempts (one Query of keys, newest first).
func (s *Store) AddAttempt(ctx context.Context, id string, a webhook.Attempt) error {
	doc, err := json.Marshal(a)
	if err != nil {
		return err
	}
	item := key(pkAttemptsPrefix+id, orderTime(a.At)+"#"+uuid.Must(uuid.NewV7()).String())
	item[attrType] = str(typeAttempt)
	putBlob(item, attrDoc, doc)
	done, err := s.exclusiveWrite(ctx)
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: item})
	done()
	if err != nil {
		return err
	}
	keys, err := s.attemptKeys(ctx, id, webhook.KeepAttempts+25)
	if err != nil || len(keys) <= webhook.KeepAttempts {
		return err
	}
	return s.deleteKeys(ctx, keys[webhook.KeepAttempts:])
}

// attemptKeys lists a log's keys newest first (up to want; 0: all).
func (s *Store) attemptKeys(ctx context.Context, id string, want int) ([]map[string]types.AttributeValue, error) {
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK, "#sk": attrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pkAttemptsPrefix + id)},
		ProjectionExpression:      aws.String("#pk, #sk"),
		ScanIndexForward:          aws.Bool(false),
		ConsistentRead:            aws.Bool(true),
	}
	if want > 0 {
		in.Limit = aws.Int32(int32(want))
	}
	items, err := s.queryAll(ctx, in, want)
	if err != nil {
		return nil, err
	}
	if want > 0 && len(items) > want {
		items = items[:want]
	}
	return items, nil
}

// deleteKeys deletes items by key, 25 a request, asking again for what
// DynamoDB leaves unprocessed.
func (s *Store) deleteKeys(ctx context.Context, keys []map[string]types.AttributeValue) error {
	for len(keys) > 0 {
		n := min(len(keys), 25)
		var reqs []types.WriteRequest
		for _, k := range keys[:n] {
			reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: key(getS(k, attrPK), getS(k, attrSK))}})
		}
		keys = keys[n:]
		for tries := 0; len(reqs) > 0; tries++ {
			if tries == 10 {
				return errors.New("dynamo: deleting webhook attempts: DynamoDB kept leaving deletes unprocessed")
			}
			done, err := s.exclusiveWrite(ctx)
			if err != nil {
				return err
			}
			out, err := s.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{s.table: reqs}})
			done()
			if err != nil {
				return err
			}
			reqs = out.UnprocessedItems[s.table]
			if len(reqs) > 0 {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(time.Duration(tries+1) * 20 * time.Millisecond):
				}
			}
		}
	}
	return nil
}

// ListAttempts is one Query, newest first.
func (s *Store) ListAttempts(ctx context.Context, id string, limit int) ([]webhook.Attempt, error) {
	items, err := s.queryAll(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pkAttemptsPrefix + id)},
		ScanIndexForward:          aws.Bool(false),
		ConsistentRead:            aws.Bool(true),
		Limit:                     aws.Int32(int32(limit)),
	}, limit)
	if err != nil {
		return nil, err
	}
	var out []webhook.Attempt
	for _, item := range items[:min(len(items), limit)] {
		a, err := decodeDoc[webhook.Attempt](item)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// eventsQuery is a Query of the workspace's events index.
func (s *Store) eventsQuery(workspace string) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(indexEvents),
		KeyConditionExpression:    aws.String("#ws = :ws"),
		ExpressionAttributeNames:  map[string]string{"#ws": attrEventWS},
		ExpressionAttributeValues: map[string]types.AttributeValue{":ws": str(workspace)},
	}
}

// EventsEnd is the ev_at of the workspace's newest event.
func (s *Store) EventsEnd(ctx context.Context, workspace string) (string, error) {
	in := s.eventsQuery(workspace)
	in.ScanIndexForward, in.Limit = aws.Bool(false), aws.Int32(1)
	items, err := s.queryAll(ctx, in, 1)
	if err != nil || len(items) == 0 {
		return "", err
	}
	return getS(items[0], attrEventOrder), nil
}

// EventsAfter is one Query of the events index from the cursor, oldest
// first, stopping at events younger than the settle window
// (SetWebhookSettle), then one BatchGetItem of their tickets' titles.
func (s *Store) EventsAfter(ctx context.Context, workspace, cursor string, limit int) ([]webhook.FeedEvent, error) {
	in := s.eventsQuery(workspace)
	settled := orderTime(time.Now().Add(-time.Duration(webhookSettle.Load())))
	in.KeyConditionExpression = aws.String("#ws = :ws AND #at BETWEEN :from AND :to")
	in.ExpressionAttributeNames["#at"] = attrEventOrder
	// ev_at is <time>#<id>: "#" sorts after every character of a time, and
	// "~" after every character of an id.
	in.ExpressionAttributeValues[":from"] = str(cursor + "\x00")
	in.ExpressionAttributeValues[":to"] = str(settled + "~")
	if cursor == "" {
		in.ExpressionAttributeValues[":from"] = str("0")
	}
	if cursor >= settled+"~" {
		return nil, nil
	}
	in.Limit = aws.Int32(int32(limit))
	items, err := s.queryAll(ctx, in, limit)
	if err != nil {
		return nil, err
	}
	out := make([]webhook.FeedEvent, 0, min(len(items), limit))
	for _, item := range items[:min(len(items), limit)] {
		e, err := decodeDoc[board.Event](item)
		if err != nil {
			return nil, err
		}
		out = append(out, webhook.FeedEvent{Cursor: getS(item, attrEventOrder), Event: e})
	}
	return out, s.fillTitles(ctx, out)
}

// fillTitles reads the events' tickets in one BatchGetItem (eventual
// reads: a title a moment old is fine).
func (s *Store) fillTitles(ctx context.Context, evs []webhook.FeedEvent) error {
	var ids []string
	for _, e := range evs {
		if e.Event.TicketID != "" && !slices.Contains(ids, e.Event.TicketID) {
			ids = append(ids, e.Event.TicketID)
		}
	}
	titles := map[string]string{}
	for len(ids) > 0 {
		n := min(len(ids), batchGetMax)
		var keys []map[string]types.AttributeValue
		for _, id := range ids[:n] {
			keys = append(keys, ticketKey(id))
		}
		found, err := s.batchGet(ctx, keys)
		if err != nil {
			return err
		}
		for i, item := range found {
			if item == nil {
				continue
			}
			t, err := decodeTicket(item)
			if err != nil {
				return err
			}
			titles[ids[i]] = t.Title
		}
		ids = ids[n:]
	}
	for i := range evs {
		evs[i].Title = titles[evs[i].Event.TicketID]
	}
	return nil
}

// FindEvent finds an event by id: the events index is ordered by time,
// not id, so it is a Query of the workspace's events, newest first,
// filtered on the id ev_at ends with; an admin's "send again" names a
// recent event, found on the first page.
func (s *Store) FindEvent(ctx context.Context, workspace, id string) (webhook.FeedEvent, error) {
	in := s.eventsQuery(workspace)
	in.ScanIndexForward = aws.Bool(false)
	in.FilterExpression = aws.String("contains(#at, :id)")
	in.ExpressionAttributeNames["#at"] = attrEventOrder
	in.ExpressionAttributeValues[":id"] = str("#" + id)
	items, err := s.queryAll(ctx, in, 1)
	if err != nil {
		return webhook.FeedEvent{}, err
	}
	for _, item := range items {
		if strings.HasSuffix(getS(item, attrEventOrder), "#"+id) {
			e, err := decodeDoc[board.Event](item)
			if err != nil {
				return webhook.FeedEvent{}, err
			}
			out := []webhook.FeedEvent{{Cursor: getS(item, attrEventOrder), Event: e}}
			return out[0], s.fillTitles(ctx, out)
		}
	}
	return webhook.FeedEvent{}, board.ErrNotFound
}
