package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// SaveTicket commits an update, move, note or note edit: the request record, the new
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
	// A blocker's move to or from done changes the tickets it blocks in
	// the same transaction (relations.go).
	var deps []types.TransactWriteItem
	if tx.After != nil {
		if deps, err = s.dependents(ctx, tx.Before, *tx.After); err != nil {
			return ledger.Record{}, err
		}
	}
	ctx = withWriteDeadline(ctx, time.Now().Add(s.raceFor))
	var tries writeAttempts
	var at saveLayout
	var words wordChange
	var replay *ledger.Record
	var firstDep, lastDep int
	committed, err := s.transact(ctx, txn{
		what: "saving ticket " + tx.Before.ID,
		build: func(txid string) ([]types.TransactWriteItem, error) {
			tries.txids = append(tries.txids, txid)
			for {
				items, layout, err := s.saveItems(tx, txid, shard)
				if err != nil {
					return nil, err
				}
				at = layout
				if tx.After != nil {
					// Last: the conditional items keep their positions.
					items, words = s.withWords(items, at.ticket, &tx.Before, *tx.After)
				}
				firstDep = len(items)
				items = append(items, deps...)
				lastDep = len(items)
				over := len(items) - maxTransactItems
				if over <= 0 || len(tx.Inbox) == 0 {
					return items, nil
				}
				// A blocker's dependents and the people a move tells can
				// together outgrow one transaction: the dependents must
				// change with the move, the inbox items are notices, so
				// the last people told give way (two items each).
				tx.Inbox = tx.Inbox[:max(0, len(tx.Inbox)-(over+1)/inboxItemsPerEntry)]
			}
		},
		judge: func(ctx context.Context, c *cancellation) (step, error) {
			switch {
			case c.failedAt(0):
				old, _, next, err := s.ownRecord(ctx, tx.Request.Key, c.old[0], now, tries)
				replay = old
				return next, err
			case c.failedAt(at.ticket):
				return stepDone, s.ticketMoved(ctx, tx.Before.ID, c.old[at.ticket])
			case c.failedIn(firstDep, lastDep):
				return stepDone, board.ErrVersionConflict // a blocked ticket changed: read the blocker's again
			}
			return stepBackoff, nil
		},
		stillValid: func(ctx context.Context) error {
			moved := s.ticketStillAt(ctx, tx.Before.ID, tx.Before.Version)
			if moved == nil {
				return nil
			}
			// The ticket moved: perhaps by this call's own attempt whose
			// answer was lost, which the SDK resent into the conflict.
			// Its record is then the answer, not a reason to recompute.
			held, err := s.committedEarlier(ctx, tx.Request.Key, now, tries)
			if err != nil {
				return err
			}
			if held != nil {
				replay = held
				return errCommittedEarlier
			}
			return moved
		},
	})
	switch {
	case errors.Is(err, errCommittedEarlier):
		s.cache.countsChanged(tx.Before.Workspace)
		return *replay, nil
	case err != nil:
		return ledger.Record{}, err
	case replay != nil:
		s.cache.countsChanged(tx.Before.Workspace) // an earlier attempt committed
		return *replay, nil
	case committed && tx.After != nil:
		if shard >= 0 {
			s.cache.countsChanged(tx.Before.Workspace)
		}
		s.indexLater(ctx, words)
	}
	return tx.Request, nil
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
	if tx.EditedNote != nil {
		note, err := s.editedNoteWrite(*tx.EditedNote)
		if err != nil {
			return nil, at, err
		}
		items = append(items, note)
	}
	scrubbed, err := s.scrubbedEventWrites(tx.ScrubbedEvents)
	if err != nil {
		return nil, at, err
	}
	items = append(items, scrubbed...)
	records, err := s.scrubbedRecordWrites(tx.ScrubbedRequests)
	if err != nil {
		return nil, at, err
	}
	items = append(items, records...)
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

// ticketStillAt reads a ticket's version consistently: ErrVersionConflict
// when another write moved it past version, ErrNotFound when it is gone,
// nil when a write computed from version can still commit.
func (s *Store) ticketStillAt(ctx context.Context, id string, version int64) error {
	done, err := s.sharedRead(ctx)
	if err != nil {
		return err
	}
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: ticketKey(id), ConsistentRead: aws.Bool(true),
		ProjectionExpression: aws.String("#v"), ExpressionAttributeNames: map[string]string{"#v": attrVersion}})
	done()
	switch {
	case err != nil:
		return err
	case len(out.Item) == 0:
		return board.ErrNotFound
	case getN(out.Item, attrVersion) != version:
		return board.ErrVersionConflict
	}
	return nil
}
