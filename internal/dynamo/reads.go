package dynamo

import (
	"context"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// defaultEvents is ListEvents' page when the caller names no limit.
const defaultEvents = 20

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
// nothing has to be read first. The policy it read is the one the
// SaveTicket of this request goes by (policyreads.go). When this instance
// holds no fresh count-shard slot of the workspace, one is taken beside
// the read, for a move's transaction.
func (s *Store) LoadForWrite(ctx context.Context, k ledger.Key, ticketID string, now time.Time) (board.WriteContext, error) {
	keys := []map[string]types.AttributeValue{requestKey(k)}
	slug, _, err := board.ParseTicketID(ticketID)
	var wg sync.WaitGroup
	if err == nil {
		keys = append(keys, ticketKey(ticketID), workspaceKey(slug))
		if !s.hasFreeSlot(slug) {
			// Its error is the move's to meet: SaveTicket takes a slot again.
			wg.Go(func() { _ = s.leaseSlot(ctx, slug) })
		}
	}
	found, err := s.batchGet(ctx, keys)
	wg.Wait()
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
	s.cache.setPolicy(slug, w.Workspace.AIPolicy)
	s.policyReads.put(k, w.Workspace.AIPolicy)
	wc.Ticket, wc.Policy = &t, w.Workspace.AIPolicy
	return wc, nil
}
