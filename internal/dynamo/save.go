package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// SaveTicket commits an update, move or note: the request record, the new
// ticket (on the condition that its version is still the one the change was
// computed from), the count change on this instance's count shard when the
// status changed, the event and the note, in one transaction. A lost race
// is ErrVersionConflict; the service reloads and recomputes. An AI
// caller's policy is the one read consistently at the start of the write
// (policyreads.go); the transaction names no workspace item.
func (s *Store) SaveTicket(ctx context.Context, tx board.SaveTx) (ledger.Record, error) {
	now := tx.Request.CreatedAt
	unlock, err := s.locks.lock(ctx, "ticket\x00"+tx.Before.ID)
	if err != nil {
		return ledger.Record{}, err
	}
	defer unlock()
	if tx.AllowedPolicies != nil {
		if err := s.writePolicy(ctx, tx.Request, tx.Before.Workspace, tx.AllowedPolicies); err != nil {
			return ledger.Record{}, err
		}
	} else {
		s.policyReads.take(tx.Request.Key) // a person's write needs no policy: forget the reading
	}
	shard := -1
	if tx.After != nil && tx.After.Status != tx.Before.Status {
		var release func()
		if shard, release, err = s.takeSlot(ctx, tx.Before.Workspace); err != nil {
			return ledger.Record{}, err
		}
		defer release()
	}
	var w writeAttempts
	ctx = withWriteDeadline(ctx, time.Now().Add(s.raceFor))
	for attempt := 0; attempt < maxAttempts; attempt++ {
		txid := newTxID()
		w.txids = append(w.txids, txid)
		items, at, err := s.saveItems(tx, txid, shard)
		if err != nil {
			return ledger.Record{}, err
		}
		var words wordChange
		if tx.After != nil {
			// Last: the conditional items keep their positions.
			items, words = s.withWords(items, at.ticket, &tx.Before, *tx.After)
		}
		c, err := s.commit(ctx, items)
		switch {
		case err != nil:
			return ledger.Record{}, err
		case c == nil:
			if tx.After != nil {
				if shard >= 0 {
					s.cache.countsChanged(tx.Before.Workspace)
				}
				s.indexLater(ctx, words)
			}
			return tx.Request, nil
		case c.failedAt(0):
			verdict, old, err := s.existingRecord(ctx, tx.Request.Key, c.old[0], now, w)
			if err != nil {
				return ledger.Record{}, err
			}
			switch verdict {
			case recordOurs:
				s.cache.countsChanged(tx.Before.Workspace) // an earlier attempt committed
				return *old, nil
			case recordTaken:
				return ledger.Record{}, &ledger.ExistsError{Record: *old}
			}
			continue
		case c.failedAt(at.ticket):
			return ledger.Record{}, s.ticketMoved(ctx, tx.Before.ID, c.old[at.ticket])
		}
		if err := backoff(ctx, attempt); err != nil {
			return ledger.Record{}, err
		}
	}
	return ledger.Record{}, fmt.Errorf("dynamo: saving ticket %s kept conflicting after %d attempts; nothing was written by this call", tx.Before.ID, maxAttempts)
}

// saveLayout says where the conditional items of a save sit: the request
// record is always item 0, the ticket (its new state, or a check of its
// version) item 1.
type saveLayout struct{ ticket int }

// saveItems lays out a save; shard is the count shard a status change
// adds to.
func (s *Store) saveItems(tx board.SaveTx, txid string, shard int) ([]types.TransactWriteItem, saveLayout, error) {
	var at saveLayout
	rec, part, err := recordItems(tx.Request, txid)
	if err != nil {
		return nil, at, err
	}
	cond, names, values := recordCondition(tx.Request.CreatedAt)
	items := []types.TransactWriteItem{s.put(rec, cond, names, values, true)}
	// The stored version must still be the one the change (or, for a call
	// that changes nothing, the stored result) was computed from.
	versionCond := "attribute_exists(#pk) AND #v = :v"
	versionNames := map[string]string{"#pk": attrPK, "#v": attrVersion}
	versionValues := map[string]types.AttributeValue{":v": num(tx.Before.Version)}
	at.ticket = len(items)
	if tx.After == nil {
		items = append(items, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName:                           aws.String(s.table),
			Key:                                 ticketKey(tx.Before.ID),
			ConditionExpression:                 aws.String(versionCond),
			ExpressionAttributeNames:            versionNames,
			ExpressionAttributeValues:           versionValues,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}})
	} else {
		ticket, err := ticketItem(*tx.After)
		if err != nil {
			return nil, at, err
		}
		if err := checkSize("ticket", ticket); err != nil {
			return nil, at, err
		}
		items = append(items, s.put(ticket, versionCond, versionNames, versionValues, true))
		if d := moved(tx.Before.Status, tx.After.Status); d != nil {
			if shard < 0 {
				return nil, at, fmt.Errorf("dynamo: a move of %s without a count shard", tx.Before.ID)
			}
			items = append(items, s.countAdd(tx.Before.Workspace, shard, d))
		}
	}
	if tx.Event != nil {
		ev, err := eventItem(*tx.Event)
		if err != nil {
			return nil, at, err
		}
		items = append(items, s.put(ev, "", nil, nil, false))
	}
	if tx.Note != nil {
		note, err := noteItem(*tx.Note)
		if err != nil {
			return nil, at, err
		}
		items = append(items, s.put(note, "", nil, nil, false))
	}
	if part != nil {
		items = append(items, s.put(part, "", nil, nil, false))
	}
	inbox, err := inboxWrites(s, tx.Inbox)
	if err != nil {
		return nil, at, err
	}
	items = append(items, inbox...)
	if tx.After != nil {
		// Last: the conditional items keep their positions.
		items = append(items, s.tagWrites(&tx.Before, *tx.After)...)
	}
	return items, at, nil
}

// ticketMoved tells a lost race from a vanished ticket, from the old item
// the cancellation carried or, without it, a consistent read.
func (s *Store) ticketMoved(ctx context.Context, id string, old map[string]types.AttributeValue) error {
	if old == nil {
		item, err := s.getItem(ctx, ticketKey(id))
		if err != nil {
			return err
		}
		old = item
	}
	if old == nil {
		return board.ErrNotFound
	}
	return board.ErrVersionConflict
}
