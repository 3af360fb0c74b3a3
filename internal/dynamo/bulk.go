package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Bulk is what LoadBulk writes: tickets (each with the event of its
// creation, if given) and notes.
type Bulk struct {
	Tickets []board.Ticket
	Events  []board.Event
	Notes   []board.Note
}

// batchWriteMax is BatchWriteItem's limit of requests per call.
const batchWriteMax = 25

// LoadBulk writes tickets, events and notes straight into the table with
// BatchWriteItem, built by the same item builders as the write
// transactions (so every index item and index attribute is there), then
// raises each workspace's counter and counts to match. It exists to grow
// benchmark boards quickly (bench/cmd/scale): it writes no request records,
// is not atomic and not exactly-once, and must not run while the
// workspaces it fills take other writes. Tickets must be new (not yet
// stored): their counts are added, not recomputed.
func (s *Store) LoadBulk(ctx context.Context, b Bulk) error {
	var items []map[string]types.AttributeValue
	next := map[string]int64{}
	counts := map[string]map[board.Status]int64{}
	for _, t := range b.Tickets {
		ticketItems, err := s.ticketItems(t)
		if err != nil {
			return err
		}
		items = append(items, ticketItems...)
		next[t.Workspace] = max(next[t.Workspace], t.Number+1)
		if counts[t.Workspace] == nil {
			counts[t.Workspace] = map[board.Status]int64{}
		}
		counts[t.Workspace][t.Status]++
	}
	for _, e := range b.Events {
		item, err := eventItem(e)
		if err != nil {
			return err
		}
		items = append(items, item)
	}
	for _, n := range b.Notes {
		item, err := noteItem(n)
		if err != nil {
			return err
		}
		items = append(items, item)
	}
	for start := 0; start < len(items); start += batchWriteMax {
		if err := s.batchPut(ctx, items[start:min(start+batchWriteMax, len(items))]); err != nil {
			return err
		}
	}
	for slug, n := range next {
		if err := s.raiseBulk(ctx, slug, n, counts[slug]); err != nil {
			return err
		}
	}
	return nil
}

// batchPut writes up to 25 items (batchWrite).
func (s *Store) batchPut(ctx context.Context, items []map[string]types.AttributeValue) error {
	reqs := make([]types.WriteRequest, len(items))
	for i, item := range items {
		reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: item}}
	}
	return s.batchWrite(ctx, reqs)
}

// raiseBulk moves a workspace's counter up to at least next and adds to
// its counts (on count shard 0, with the workspace's existence checked).
func (s *Store) raiseBulk(ctx context.Context, slug string, next int64, counts map[board.Status]int64) error {
	if err := s.raiseNext(ctx, slug, next); err != nil {
		return fmt.Errorf("dynamo: raising the counter of %s: %w", slug, err)
	}
	if len(counts) > 0 {
		c, err := s.commit(ctx, []types.TransactWriteItem{s.mustExist(workspaceKey(slug)), s.countAdd(slug, 0, counts)})
		if err == nil && c != nil {
			err = board.ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("dynamo: adding the counts of %s: %w", slug, err)
		}
	}
	s.cache.countsChanged(slug)
	return nil
}

// ticketItems is a new ticket's items (newTicket) as plain items, with
// every word item (a bulk load has no transaction to fit them in).
func (s *Store) ticketItems(t board.Ticket) ([]map[string]types.AttributeValue, error) {
	n, err := s.newTicket(t, false)
	if err != nil {
		return nil, err
	}
	items := []map[string]types.AttributeValue{n.ticket.Put.Item}
	for _, tag := range n.tags {
		items = append(items, tag.Put.Item)
	}
	entries, _ := ticketWordEntries(&t)
	for _, e := range entries {
		items = append(items, wordKey(t.Workspace, t.Number, e))
	}
	return items, nil
}
