package dynamo

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// ListTickets decides the policy first (readableWorkspace), then reads one
// index newest first, below the cursor's number:
//
//   - a text query: the word index (search.go), then the tickets by key;
//   - else a tag: tickets_by_tag (keys only), then the tickets by key;
//   - else the status, else the owner, else the whole workspace: their
//     indexes, which hold whole tickets.
//
// What that index does not answer (an owner under a status, anything
// beside a tag or a text query) is checked on what it yields: a FilterExpression,
// or after the tickets are read for a tag. Such a read asks for limit+1
// items first and four times as many each page after (Limit), and stops
// once it has examined q.MaxScan items: a page that is not full by then is
// partial and continues below the last item examined. Without such checks
// the read asks for exactly limit+1 items. Either way a call reads a number
// of items bounded by its page and MaxScan, however large the workspace.
func (s *Store) ListTickets(ctx context.Context, q board.TicketQuery) (board.TicketPage, error) {
	var policy board.AIPolicy
	var counts map[board.Status]int
	var countsErr error
	var wg sync.WaitGroup
	if p, ok := s.cache.policyOnly(q.Workspace, s.policyTTL); ok {
		// The policy is known: if the counts are not (a write of this
		// instance changed them), they are read beside the list.
		policy = p
		if _, c, ok := s.cache.policy(q.Workspace, s.policyTTL); ok {
			counts = c
		} else {
			wg.Go(func() { _, counts, countsErr = s.workspacePolicyCounts(ctx, q.Workspace) })
		}
	} else {
		var err error
		if policy, counts, err = s.workspacePolicyCounts(ctx, q.Workspace); err != nil {
			return board.TicketPage{}, err
		}
	}
	if err := board.CheckPolicy(q.Readable, policy); err != nil {
		wg.Wait()
		return board.TicketPage{}, err
	}
	b := newPageBuilder(q)
	var err error
	switch {
	case q.Parent != "":
		err = s.listChildren(ctx, q, b)
	case q.Query != "":
		err = s.searchTickets(ctx, q, b)
	case q.Tag != "":
		err = s.listByTag(ctx, q, b)
	default:
		err = s.listByIndex(ctx, q, b)
	}
	wg.Wait()
	if err == nil {
		err = countsErr
	}
	if err != nil {
		return board.TicketPage{}, err
	}
	b.page.Policy, b.page.Counts = policy, counts
	return b.page, nil
}

// pageBuilder collects a page: up to limit tickets, then one more means
// More; and at most maxBytes of text (the first ticket always).
type pageBuilder struct {
	limit, scan int
	budget      board.TextBudget
	page        board.TicketPage
	done        bool
}

func newPageBuilder(q board.TicketQuery) *pageBuilder {
	b := &pageBuilder{limit: q.Limit, scan: q.MaxScan, budget: board.TextBudget{Max: q.MaxBytes}, page: board.TicketPage{Tickets: []board.Ticket{}}}
	if b.limit <= 0 {
		b.limit = board.DefaultLimit
	}
	if b.scan <= 0 {
		b.scan = board.DefaultScan
	}
	return b
}

// add takes the next matching ticket; false once the page is complete.
func (b *pageBuilder) add(t board.Ticket) bool {
	switch {
	case len(b.page.Tickets) == b.limit:
		b.page.More, b.done = true, true
	case !b.budget.Take(t):
		b.page.More, b.page.Partial, b.done = true, true, true
	default:
		b.page.Tickets = append(b.page.Tickets, t)
	}
	return !b.done
}

// stopAt ends a page that reached the scan bound: more may match below
// the number last examined.
func (b *pageBuilder) stopAt(lastExamined int64) {
	b.page.More, b.page.Partial, b.page.Next, b.done = true, true, lastExamined, true
}

// growth is how much larger each page of a checked read asks for.
const growth = 4

// listByIndex reads the status, owner or workspace index.
func (s *Store) listByIndex(ctx context.Context, q board.TicketQuery, b *pageBuilder) error {
	in := s.ticketQuery(q)
	checked := in.FilterExpression != nil
	ask, examined := b.limit+1, 0
	for {
		if checked {
			in.Limit = aws.Int32(int32(min(ask, b.scan-examined)))
		} else {
			in.Limit = aws.Int32(int32(b.limit + 1 - len(b.page.Tickets)))
		}
		out, err := s.query(ctx, in)
		if err != nil {
			return err
		}
		for _, item := range out.Items {
			t, err := decodeTicket(item)
			if err != nil {
				return err
			}
			if !b.add(t) {
				return nil
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		if next, ok := continueBelow(in, out.LastEvaluatedKey, q.Before); ok {
			examined += scanned(out.ScannedCount, in.Limit)
			if checked && examined >= b.scan {
				b.stopAt(next)
				return nil
			}
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
		ask *= growth
	}
}

// scanned is what a page examined: its ScannedCount, or its Limit for an
// endpoint that does not report one.
func scanned(count int32, limit *int32) int {
	if count > 0 {
		return int(count)
	}
	return int(aws.ToInt32(limit))
}

// continueBelow is the ticket number a listing continues below after a
// page that ended at lek, and whether lek lies in the range the query asked
// for. On DynamoDB it always does. minidyn, given a FilterExpression,
// counts the index's items outside the key condition (other partitions,
// numbers above the cursor) toward Limit and may end a page on one of them;
// such a page examined nothing in range, so it does not count toward the
// scan bound and the read goes on from there.
func continueBelow(in *dynamodb.QueryInput, lek map[string]types.AttributeValue, before int64) (int64, bool) {
	keyAttr := in.ExpressionAttributeNames["#k"]
	want, _ := in.ExpressionAttributeValues[":k"].(*types.AttributeValueMemberS)
	n, err := strconv.ParseInt(getS(lek, attrNumKey), 10, 64)
	inRange := err == nil && n > 0 && want != nil && getS(lek, keyAttr) == want.Value && (before == 0 || n < before)
	return n, inRange
}

func (s *Store) ticketQuery(q board.TicketQuery) *dynamodb.QueryInput {
	names := map[string]string{"#k": attrWS, "#num": attrNum, "#doc": attrDoc, "#docz": zipped(attrDoc), "#ob": attrOpenBlockers}
	values := map[string]types.AttributeValue{":k": str(q.Workspace)}
	index := indexTickets
	switch {
	case q.Status != "":
		index, names["#k"], values[":k"] = indexByStatus, attrWSStatus, str(q.Workspace+"#"+string(q.Status))
	case q.Owner != "":
		index, names["#k"], values[":k"] = indexByOwner, attrWSOwner, str(q.Workspace+"#"+q.Owner)
	}
	keyCond := "#k = :k"
	if q.Before > 0 {
		keyCond += " AND #n < :before"
		names["#n"], values[":before"] = attrNumKey, numberKey(q.Before)
	}
	var filters []string
	if q.Status != "" && q.Owner != "" { // status chose the index; owner filters
		names["#owner"], values[":owner"] = attrOwnerTk, str(q.Owner)
		filters = append(filters, "#owner = :owner")
	}
	if q.Claimed != nil {
		filters = append(filters, claimedFilter(*q.Claimed, orderTime(q.Now), names, values))
	}
	if q.Ready {
		filters = append(filters, readyFilter(names, values))
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(index),
		KeyConditionExpression:    aws.String(keyCond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
		ScanIndexForward:          aws.Bool(false),
		// Only what decodeTicket needs travels back; filters still see
		// every projected attribute.
		ProjectionExpression: aws.String("#doc, #docz, #num, #ob"),
	}
	if len(filters) > 0 {
		in.FilterExpression = aws.String(strings.Join(filters, " AND "))
	}
	return in
}

// listByTag reads tag items newest first, then their tickets by key, and
// checks the other filters (and the tag itself: the index may lag) on them.
func (s *Store) listByTag(ctx context.Context, q board.TicketQuery, b *pageBuilder) error {
	names := map[string]string{"#k": attrWSTag}
	values := map[string]types.AttributeValue{":k": str(q.Workspace + "#" + q.Tag)}
	keyCond := "#k = :k"
	if q.Before > 0 {
		keyCond += " AND #n < :before"
		names["#n"], values[":before"] = attrNumKey, numberKey(q.Before)
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(indexByTag),
		KeyConditionExpression:    aws.String(keyCond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
		ScanIndexForward:          aws.Bool(false),
	}
	checked := q.Status != "" || q.Owner != "" || q.Claimed != nil || q.Ready
	match := func(t board.Ticket) bool { _, ok := q.Matches(t, nil); return ok }
	ask, examined := b.limit+1, 0
	for {
		if checked {
			in.Limit = aws.Int32(int32(min(ask, b.scan-examined)))
		} else {
			in.Limit = aws.Int32(int32(b.limit + 1 - len(b.page.Tickets)))
		}
		out, err := s.query(ctx, in)
		if err != nil {
			return err
		}
		keys := make([]map[string]types.AttributeValue, len(out.Items))
		for i, item := range out.Items {
			keys[i] = ticketKey(strings.TrimPrefix(getS(item, attrPK), pkTagsPrefix))
		}
		if err := s.addByKey(ctx, keys, match, b); err != nil || b.done {
			return err
		}
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		if next, ok := continueBelow(in, out.LastEvaluatedKey, q.Before); ok {
			examined += scanned(out.ScannedCount, in.Limit)
			if checked && examined >= b.scan {
				b.stopAt(next)
				return nil
			}
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
		ask *= growth
	}
}

// firstFetch is how many tickets a tag listing reads by key at first; each
// next batch is twice as large (up to BatchGetItem's 100), so a page of
// large tickets stops at MaxBytes without reading the rest.
const firstFetch = 25

// addByKey reads tickets by key, in the order given, into the page, in
// batches that grow, and stops as soon as the page is complete.
func (s *Store) addByKey(ctx context.Context, keys []map[string]types.AttributeValue, match func(board.Ticket) bool, b *pageBuilder) error {
	batch := firstFetch
	for start := 0; start < len(keys); start += batch {
		if start > 0 {
			batch = min(batch*2, batchGetMax)
		}
		chunk := keys[start:min(start+batch, len(keys))]
		found, err := s.batchRead(ctx, chunk, false, "#pk, #sk, #doc, #docz, #num, #ob",
			map[string]string{"#pk": attrPK, "#sk": attrSK, "#doc": attrDoc, "#docz": zipped(attrDoc), "#num": attrNum, "#ob": attrOpenBlockers})
		if err != nil {
			return err
		}
		for _, item := range found {
			if item == nil {
				continue // deleted since the index saw it
			}
			t, err := decodeTicket(item)
			if err != nil {
				return err
			}
			if match(t) && !b.add(t) {
				return nil
			}
		}
	}
	return nil
}
