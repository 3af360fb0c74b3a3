package dynamo

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// ReadSummary is 4 requests at any size, 2 round trips: a consistent
// Query of the workspace item with its count shards (countshards.go; its
// policy decides whether to read on), then three Queries
// at once: the newest waiting_ai tickets (tickets_by_status), the open
// tickets due soonest (tickets_open_due, sparse: it holds only open tickets
// with a due date, earliest due first) and the newest events (events).
func (s *Store) ReadSummary(ctx context.Context, q board.SummaryQuery) (board.SummaryRead, error) {
	since := s.cache.epoch()
	w, ok, err := s.readWorkspace(ctx, q.Workspace)
	if err != nil {
		return board.SummaryRead{}, err
	}
	if !ok {
		s.cache.forget(q.Workspace)
		return board.SummaryRead{}, board.ErrNotFound
	}
	s.cache.remember(w, since)
	if err := board.CheckPolicy(q.Readable, w.Workspace.AIPolicy); err != nil {
		return board.SummaryRead{}, err
	}
	r := board.SummaryRead{Workspace: w.Workspace}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, 3)
	run := func(i int, fn func() error) {
		wg.Go(func() {
			if errs[i] = fn(); errs[i] != nil {
				cancel()
			}
		})
	}
	tickets := func(in *dynamodb.QueryInput, n int, out *[]board.Ticket) func() error {
		return func() error {
			if n <= 0 {
				*out = []board.Ticket{}
				return nil
			}
			items, _, err := s.queryUpTo(ctx, in, n)
			if err != nil {
				return err
			}
			*out, err = decodeTickets(items, q.MaxBytes)
			return err
		}
	}
	run(0, tickets(s.ticketIndexQuery(indexByStatus, attrWSStatus, q.Workspace+"#"+string(board.StatusWaitingAI), "", false), q.Waiting, &r.WaitingAI))
	// du_key is <due>#<number>: every key of a date d is below d + "$".
	run(1, tickets(s.ticketIndexQuery(indexOpenDue, attrDueWS, q.Workspace, q.DueBy+"$", true), q.Due, &r.DueSoon))
	run(2, func() error {
		var err error
		r.Events, err = s.ListEvents(ctx, q.Workspace, q.Events)
		return err
	})
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return board.SummaryRead{}, err
		}
	}
	return r, nil
}

// ticketIndexQuery reads whole tickets from an index by its partition key,
// newest number first, or (ascending) in sort key order below upper.
func (s *Store) ticketIndexQuery(index, keyAttr, keyValue, upper string, ascending bool) *dynamodb.QueryInput {
	names := map[string]string{"#k": keyAttr, "#num": attrNum, "#doc": attrDoc, "#docz": zipped(attrDoc)}
	values := map[string]types.AttributeValue{":k": str(keyValue)}
	cond := "#k = :k"
	if upper != "" {
		cond += " AND #s < :upper"
		names["#s"], values[":upper"] = attrDueKey, str(upper)
	}
	return &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(index),
		KeyConditionExpression:    aws.String(cond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
		ScanIndexForward:          aws.Bool(ascending),
		ProjectionExpression:      aws.String("#doc, #docz, #num"),
	}
}

// decodeTickets decodes tickets in order, stopping once they hold maxBytes
// of text (0: no bound); the first is always kept.
func decodeTickets(items []map[string]types.AttributeValue, maxBytes int) ([]board.Ticket, error) {
	out := []board.Ticket{}
	budget := board.TextBudget{Max: maxBytes}
	for _, item := range items {
		t, err := decodeTicket(item)
		if err != nil {
			return nil, err
		}
		if !budget.Take(t) {
			break
		}
		out = append(out, t)
	}
	return out, nil
}
