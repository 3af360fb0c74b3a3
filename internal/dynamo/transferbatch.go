package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// PutBatch puts moved items a transaction of up to 100 items at a time,
// on the bet that they are new (a first run): each item's put under its
// absence condition, one check per parent, and per workspace one update
// adding the tickets' counts. When the bet fails (an item is there, a
// parent missing), that transaction writes nothing and its items are put
// one by one, which tells each outcome. A first import then costs about
// one request per 30 items instead of one or two per item.
func (s *Store) PutBatch(ctx context.Context, items []board.TransferredItem, now time.Time, stopAtCollision bool) ([]board.PutOutcome, error) {
	var outs []board.PutOutcome
	for start := 0; start < len(items); {
		n, tx, err := s.batchTx(ctx, items[start:], now)
		if err != nil {
			return outs, &board.BatchError{Index: start, Err: err}
		}
		c, err := s.commit(ctx, tx)
		if err != nil {
			return outs, &board.BatchError{Index: start, Err: err}
		}
		if c == nil {
			var words []wordChange
			for _, it := range items[start : start+n] {
				outs = append(outs, board.Added)
				if it.Ticket != nil {
					s.cache.countsChanged(it.Ticket.Workspace)
					words = append(words, diffWords(nil, *it.Ticket, 0)) // as indexMoved
				}
			}
			if err := s.applyWords(ctx, words...); err != nil {
				return outs[:len(outs)-n], &board.BatchError{Index: start, Err: err}
			}
			start += n
			continue
		}
		for i := start; i < start+n; i++ {
			out, err := s.putMoved(ctx, items[i], now)
			if err != nil {
				return outs, &board.BatchError{Index: i, Err: err}
			}
			outs = append(outs, out)
			if stopAtCollision && out == board.Collision {
				return outs, nil
			}
		}
		start += n
	}
	return outs, nil
}

func (s *Store) putMoved(ctx context.Context, it board.TransferredItem, now time.Time) (board.PutOutcome, error) {
	switch {
	case it.Ticket != nil:
		return s.PutTicket(ctx, *it.Ticket)
	case it.Note != nil:
		return s.PutNote(ctx, *it.Note)
	case it.Event != nil:
		return s.PutEvent(ctx, *it.Event)
	case it.Request != nil:
		return s.PutRequest(ctx, *it.Request, now)
	case it.Inbox != nil:
		return s.PutInboxItem(ctx, *it.Inbox)
	}
	return 0, fmt.Errorf("dynamo: an empty item in a batch")
}

// batchTx lays out the transaction for the longest prefix of items that
// fits in one (100 items, under 4 MB) and returns how many it holds.
// Tickets' workspace counters are raised first, as PutTicket does.
func (s *Store) batchTx(ctx context.Context, items []board.TransferredItem, now time.Time) (int, []types.TransactWriteItem, error) {
	var puts []types.TransactWriteItem
	parents := map[string]map[string]types.AttributeValue{} // parent key -> key
	counts := map[string]map[board.Status]int64{}           // workspace -> status -> tickets
	next := map[string]int64{}
	size, n := 0, 0
	for _, it := range items {
		writes, parent, bytes, err := s.movedWrites(it, now)
		if err != nil {
			if n == 0 {
				return 0, nil, err
			}
			break // the single put reports it
		}
		newParent := 0
		if parent != nil {
			if _, ok := parents[keyString(parent)]; !ok {
				newParent = 1
			}
		}
		newCount := 0
		if it.Ticket != nil && counts[it.Ticket.Workspace] == nil {
			newCount = 2 // its count shard and the check of its workspace
		}
		if n > 0 && (len(puts)+len(writes)+len(parents)+newParent+2*len(counts)+newCount > chunkItems || size+bytes > chunkBytes) {
			break
		}
		puts = append(puts, writes...)
		size += bytes
		if parent != nil {
			parents[keyString(parent)] = parent
		}
		if t := it.Ticket; t != nil {
			if counts[t.Workspace] == nil {
				counts[t.Workspace] = map[board.Status]int64{}
			}
			counts[t.Workspace][t.Status]++
			next[t.Workspace] = max(next[t.Workspace], t.Number+1)
		}
		n++
	}
	for ws, nx := range next {
		if !s.counterAtLeast(ws, nx) {
			err := s.raiseNext(ctx, ws, nx)
			if errors.Is(err, board.ErrNotFound) {
				// A missing workspace: this transaction fails its check,
				// and the single puts report which ticket it was.
				return n, append(puts, s.mustExist(workspaceKey(ws))), nil
			}
			if err != nil {
				return 0, nil, err
			}
		}
	}
	for _, k := range parents {
		puts = append(puts, s.mustExist(k))
	}
	for ws, byStatus := range counts {
		// An import runs alone: one shard takes its counts (no other
		// writer to meet), the workspace item checks that it exists.
		puts = append(puts, s.countAdd(ws, 0, byStatus), s.mustExist(workspaceKey(ws)))
	}
	return n, puts, nil
}

// movedWrites are the writes of one moved item, the parent that must
// exist (nil: none) and their size.
func (s *Store) movedWrites(it board.TransferredItem, now time.Time) ([]types.TransactWriteItem, map[string]types.AttributeValue, int, error) {
	switch {
	case it.Ticket != nil:
		if err := board.ValidateTicketNumber(it.Ticket.Number); err != nil {
			return nil, nil, 0, err
		}
		ticket, err := s.newTicket(*it.Ticket, false)
		if err != nil {
			return nil, nil, 0, err
		}
		return append([]types.TransactWriteItem{ticket.ticket}, ticket.tags...), nil, ticket.size, nil
	case it.Note != nil:
		item, err := noteItem(*it.Note)
		if err != nil {
			return nil, nil, 0, err
		}
		return []types.TransactWriteItem{s.put(item, "attribute_not_exists(#pk)", absent, nil, false)}, ticketKey(it.Note.TicketID), itemSize(item), nil
	case it.Event != nil:
		item, err := eventItem(*it.Event)
		if err != nil {
			return nil, nil, 0, err
		}
		return []types.TransactWriteItem{s.put(item, "attribute_not_exists(#pk)", absent, nil, false)}, workspaceKey(it.Event.Workspace), itemSize(item), nil
	case it.Request != nil:
		rec, part, err := recordItems(*it.Request, "")
		if err != nil {
			return nil, nil, 0, err
		}
		cond, names, values := recordCondition(now)
		writes := []types.TransactWriteItem{s.put(rec, cond, names, values, false)}
		bytes := itemSize(rec)
		if part != nil {
			writes = append(writes, s.put(part, "", nil, nil, false))
			bytes += itemSize(part)
		}
		return writes, nil, bytes, nil
	case it.Inbox != nil:
		writes, bytes, err := s.movedInboxWrites(*it.Inbox)
		return writes, workspaceKey(it.Inbox.Item.Workspace), bytes, err
	}
	return nil, nil, 0, fmt.Errorf("dynamo: an empty item in a batch")
}

func keyString(k map[string]types.AttributeValue) string {
	return getS(k, attrPK) + "\x00" + getS(k, attrSK)
}

func (s *Store) mustExist(k map[string]types.AttributeValue) types.TransactWriteItem {
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName:                aws.String(s.table),
		Key:                      k,
		ConditionExpression:      aws.String("attribute_exists(#pk)"),
		ExpressionAttributeNames: absent,
	}}
}
