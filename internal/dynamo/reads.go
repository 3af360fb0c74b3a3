package dynamo

import (
	"context"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// defaultEvents is ListEvents' page when the caller names no limit.
const defaultEvents = 20

// GetTicketDetail reads the ticket's partition (the ticket, its notes and
// its events) in one consistent Query; the policy comes from withPolicy.
func (s *Store) GetTicketDetail(ctx context.Context, id string) (board.TicketDetail, board.AIPolicy, error) {
	slug, _, err := board.ParseTicketID(id)
	if err != nil {
		return board.TicketDetail{}, "", board.ErrNotFound
	}
	var items []map[string]types.AttributeValue
	policy, exists, err := s.withPolicy(ctx, slug, func(ctx context.Context) error {
		var err error
		items, err = s.queryAll(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(s.table),
			KeyConditionExpression:    aws.String("#pk = :pk"),
			ExpressionAttributeNames:  map[string]string{"#pk": attrPK},
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pkTicketPrefix + id)},
			ConsistentRead:            aws.Bool(true),
		}, 0)
		return err
	})
	if err != nil {
		return board.TicketDetail{}, "", err
	}
	if !exists {
		return board.TicketDetail{}, "", board.ErrNotFound
	}
	var d board.TicketDetail
	found := false
	// Sort keys order the partition: E#… (events), N#… (notes), T (ticket);
	// events and notes are each oldest first.
	for _, item := range items {
		sk := getS(item, attrSK)
		switch {
		case sk == skTicket:
			if d.Ticket, err = decodeTicket(item); err != nil {
				return board.TicketDetail{}, "", err
			}
			found = true
		case strings.HasPrefix(sk, skNotePrefix):
			n, err := decodeDoc[board.Note](item)
			if err != nil {
				return board.TicketDetail{}, "", err
			}
			d.Notes = append(d.Notes, n)
		case strings.HasPrefix(sk, skEventPrefix):
			e, err := decodeDoc[board.Event](item)
			if err != nil {
				return board.TicketDetail{}, "", err
			}
			d.History = append(d.History, e)
		}
	}
	if !found {
		return board.TicketDetail{}, "", board.ErrNotFound
	}
	return d, policy, nil
}

// ListEvents is one Query of the events index, newest first.
func (s *Store) ListEvents(ctx context.Context, workspace string, limit int) ([]board.Event, error) {
	if limit <= 0 {
		limit = defaultEvents
	}
	items, err := s.queryAll(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(indexEvents),
		KeyConditionExpression:    aws.String("#ws = :ws"),
		ExpressionAttributeNames:  map[string]string{"#ws": attrEventWS},
		ExpressionAttributeValues: map[string]types.AttributeValue{":ws": str(workspace)},
		ScanIndexForward:          aws.Bool(false),
		Limit:                     aws.Int32(int32(limit)),
	}, limit)
	if err != nil {
		return nil, err
	}
	out := make([]board.Event, 0, min(len(items), limit))
	for _, item := range items[:min(len(items), limit)] {
		e, err := decodeDoc[board.Event](item)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// LoadForWrite reads the request record, the ticket and its workspace in
// one consistent BatchGetItem: the workspace is named by the ticket id, so
// nothing has to be read first.
func (s *Store) LoadForWrite(ctx context.Context, k ledger.Key, ticketID string, now time.Time) (board.WriteContext, error) {
	keys := []map[string]types.AttributeValue{requestKey(k)}
	slug, _, err := board.ParseTicketID(ticketID)
	if err == nil {
		keys = append(keys, ticketKey(ticketID), workspaceKey(slug))
	}
	found, err := s.batchGet(ctx, keys)
	if err != nil {
		return board.WriteContext{}, err
	}
	var wc board.WriteContext
	if wc.Existing, _, err = s.liveRecord(ctx, found[0], now); err != nil {
		return board.WriteContext{}, err
	}
	if len(found) < 3 || found[1] == nil || found[2] == nil {
		return wc, nil
	}
	t, err := decodeTicket(found[1])
	if err != nil {
		return board.WriteContext{}, err
	}
	w := decodeWorkspace(found[2])
	s.cache.remember(w)
	wc.Ticket, wc.Policy = &t, w.Workspace.AIPolicy
	return wc, nil
}
