package dynamo

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A ticket's partition sorts E#<at>#<id> (events) < N#<at>#<id> (notes) < T
// (the ticket). Read newest first from T, it yields the ticket, its notes
// newest first, then its events newest first: the newest of each are one
// Query away while the ticket has few notes.

// ReadTicket decides the policy first, then reads the partition newest
// first, asking for the ticket, notes+1 notes and events+1 events. When the
// notes alone fill that, the events get a second Query of their own. So a
// read costs 1 request (2 for a ticket with more notes than it shows) and
// at most 2·(notes+events)+4 items, whatever the ticket's history holds.
func (s *Store) ReadTicket(ctx context.Context, q board.TicketRead) (board.TicketActivity, error) {
	slug, _, err := board.ParseTicketID(q.ID)
	if err != nil {
		return board.TicketActivity{}, board.ErrNotFound
	}
	var a board.TicketActivity
	if a.Policy, err = s.readableWorkspace(ctx, slug, q.Readable); err != nil {
		return board.TicketActivity{}, err
	}
	want := 1 + (q.Notes + 1) + (q.Events + 1)
	items, exhausted, err := s.queryUpTo(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pkTicketPrefix + q.ID)},
		ScanIndexForward:          aws.Bool(false),
		ConsistentRead:            aws.Bool(true),
	}, want)
	if err != nil {
		return board.TicketActivity{}, err
	}
	if len(items) == 0 || getS(items[0], attrSK) != skTicket {
		return board.TicketActivity{}, board.ErrNotFound
	}
	if a.Ticket, err = decodeTicket(items[0]); err != nil {
		return board.TicketActivity{}, err
	}
	var noteItems, eventItems []map[string]types.AttributeValue
	for _, item := range items[1:] {
		switch sk := getS(item, attrSK); {
		case strings.HasPrefix(sk, skNotePrefix):
			noteItems = append(noteItems, item)
		case strings.HasPrefix(sk, skEventPrefix):
			eventItems = append(eventItems, item)
		}
	}
	if !exhausted && len(eventItems) <= q.Events {
		// The notes took the room: read the newest events by themselves.
		if eventItems, _, err = s.queryUpTo(ctx, s.activityQuery(q.ID, skEventPrefix, "", false), q.Events+1); err != nil {
			return board.TicketActivity{}, err
		}
	}
	if a.Notes, a.MoreNotes, err = decodeNewest[board.Note](noteItems, q.Notes); err != nil {
		return board.TicketActivity{}, err
	}
	if a.History, a.MoreHistory, err = decodeNewest[board.Event](eventItems, q.Events); err != nil {
		return board.TicketActivity{}, err
	}
	return a, nil
}

// ListNotes decides the policy, then reads the notes before the cursor
// newest first (the ticket itself with them when there is no cursor; by a
// concurrent GetItem otherwise, to tell an absent ticket from one without
// older notes).
func (s *Store) ListNotes(ctx context.Context, q board.ActivityQuery) (board.NotePage, error) {
	items, err := s.activityPage(ctx, q, skNotePrefix)
	if err != nil {
		return board.NotePage{}, err
	}
	var p board.NotePage
	p.Notes, p.More, err = decodeNewest[board.Note](items, q.Limit)
	return p, err
}

// ListHistory is ListNotes for events; the ticket's existence is always a
// concurrent GetItem (events sort before the notes, away from the ticket).
func (s *Store) ListHistory(ctx context.Context, q board.ActivityQuery) (board.EventPage, error) {
	items, err := s.activityPage(ctx, q, skEventPrefix)
	if err != nil {
		return board.EventPage{}, err
	}
	var p board.EventPage
	p.Events, p.More, err = decodeNewest[board.Event](items, q.Limit)
	return p, err
}

// activityPage reads up to q.Limit+1 items of one kind (prefix) before the
// cursor, newest first, after the policy and with the ticket's existence.
func (s *Store) activityPage(ctx context.Context, q board.ActivityQuery, prefix string) ([]map[string]types.AttributeValue, error) {
	slug, _, err := board.ParseTicketID(q.TicketID)
	if err != nil {
		return nil, board.ErrNotFound
	}
	if _, err := s.readableWorkspace(ctx, slug, q.Readable); err != nil {
		return nil, err
	}
	before := ""
	if q.Before != nil {
		before = prefix + orderTime(q.Before.At) + "#" + q.Before.ID
	}
	withTicket := prefix == skNotePrefix && before == ""
	var exists bool
	var existsErr error
	var wg sync.WaitGroup
	if !withTicket {
		wg.Go(func() {
			item, err := s.getItemKeys(ctx, ticketKey(q.TicketID))
			exists, existsErr = item != nil, err
		})
	}
	in := s.activityQuery(q.TicketID, prefix, before, withTicket)
	want := q.Limit + 1
	if withTicket || before != "" {
		want++ // the ticket, or the item at the cursor (BETWEEN includes it)
	}
	items, _, err := s.queryUpTo(ctx, in, want)
	wg.Wait()
	if err == nil && before != "" && len(items) > 0 && getS(items[0], attrSK) == before {
		items = items[1:]
	}
	switch {
	case err != nil:
		return nil, err
	case existsErr != nil:
		return nil, existsErr
	case withTicket:
		if len(items) == 0 || getS(items[0], attrSK) != skTicket {
			return nil, board.ErrNotFound
		}
		return items[1:], nil
	case !exists:
		return nil, board.ErrNotFound
	}
	return items, nil
}

// activityQuery reads a ticket's items of one kind newest first: all of
// them, or those up to the sort key before (inclusive: the caller drops the
// item at the cursor); withTicket reaches up to the ticket's own item
// (notes sort just below it).
func (s *Store) activityQuery(id, prefix, before string, withTicket bool) *dynamodb.QueryInput {
	upper := prefix + "\uffff"
	switch {
	case withTicket:
		upper = skTicket
	case before != "":
		upper = before
	}
	return &dynamodb.QueryInput{
		TableName:                aws.String(s.table),
		KeyConditionExpression:   aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK, "#sk": attrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": str(pkTicketPrefix + id), ":lo": str(prefix), ":hi": str(upper),
		},
		ScanIndexForward: aws.Bool(false),
		ConsistentRead:   aws.Bool(true),
	}
}

// queryUpTo pages a Query until it has want items or the key range ends
// (exhausted), asking each page for no more than it still needs.
func (s *Store) queryUpTo(ctx context.Context, in *dynamodb.QueryInput, want int) ([]map[string]types.AttributeValue, bool, error) {
	var out []map[string]types.AttributeValue
	for {
		in.Limit = aws.Int32(int32(want - len(out)))
		page, err := s.query(ctx, in)
		if err != nil {
			return nil, false, err
		}
		out = append(out, page.Items...)
		if len(page.LastEvaluatedKey) == 0 {
			return out, true, nil
		}
		if len(out) >= want {
			return out, false, nil
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
}

// decodeNewest decodes up to n items given newest first into oldest-first
// order, and says whether more than n were given.
func decodeNewest[T any](items []map[string]types.AttributeValue, n int) ([]T, bool, error) {
	more := len(items) > n
	items = items[:min(len(items), n)]
	out := make([]T, 0, len(items))
	for _, item := range items {
		v, err := decodeDoc[T](item)
		if err != nil {
			return nil, false, err
		}
		out = append(out, v)
	}
	slices.Reverse(out)
	return out, more, nil
}

// getItemKeys reads only an item's key, consistently: whether it exists.
func (s *Store) getItemKeys(ctx context.Context, k map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	done, err := s.sharedRead(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: k, ConsistentRead: aws.Bool(true),
		ProjectionExpression: aws.String("#pk"), ExpressionAttributeNames: map[string]string{"#pk": attrPK}})
	if err != nil {
		return nil, err
	}
	if len(out.Item) == 0 {
		return nil, nil
	}
	return out.Item, nil
}
