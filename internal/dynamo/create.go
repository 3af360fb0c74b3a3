package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// Positions of the items in a create transaction. The request record comes
// first: an endpoint that reports only the first failed condition (minidyn)
// then still reports it, and a retry gets its answer whatever else failed.
const (
	createRecord = iota
	createWorkspace
	createTicket
	createEvent
)

// DefaultCounterRaceBudget bounds how long one create keeps retrying after
// losing the workspace counter to other instances' creates; well inside
// API Gateway's 29 s limit (Config.CounterRaceBudget changes it).
const DefaultCounterRaceBudget = 20 * time.Second

// CreateTicket commits the request record, the ticket, the workspace's
// counter and counts, and the event in one transaction. The number comes
// from this process's cache of the workspace's counter: warm, the write is
// one request. The transaction's condition on the counter catches a stale
// cache; the failed condition returns the workspace item (ALL_OLD), and the
// create is built again with the right number. Before all that,
// beforeCreate answers the replays it can find in one request and makes
// the answer's own reads, the similar tickets (createreplay.go).
func (s *Store) CreateTicket(ctx context.Context, tx board.CreateTx) (ledger.Record, error) {
	now := tx.Request.CreatedAt
	if err := s.beforeCreate(ctx, tx, now); err != nil {
		var exists *ledger.ExistsError
		if errors.As(err, &exists) {
			s.answered.add(tx.Request.Key)
		}
		return ledger.Record{}, err
	}
	// Creates in one workspace would only collide on its counter.
	unlock, err := s.locks.lock(ctx, "workspace\x00"+tx.Workspace)
	if err != nil {
		return ledger.Record{}, err
	}
	defer unlock()

	if s.cache.next(tx.Workspace) == 0 {
		// Cold (beforeCreate warmed it, but a lost race reset it since):
		// read the record and the workspace together, so a replay costs
		// this one request.
		if err := s.warmForCreate(ctx, tx, now); err != nil {
			return ledger.Record{}, err
		}
	}
	var w writeAttempts
	// A lost counter race means another create committed: the board made
	// progress, so such losses do not count against maxAttempts (with five
	// instances each working through a queue of creates, one call can lose
	// dozens of times in a row while every other call succeeds). Only
	// s.raceFor bounds how long one call keeps losing.
	giveUp := time.Now().Add(s.raceFor)
	ctx = withWriteDeadline(ctx, giveUp)
	stalled := 0
	for attempt := 0; stalled < maxAttempts; attempt++ {
		number := s.cache.next(tx.Workspace)
		plan, err := tx.Build(number)
		if err != nil {
			return ledger.Record{}, err
		}
		rec := tx.Request
		rec.Result = plan.Result
		txid := newTxID()
		w.txids = append(w.txids, txid)
		items, words, err := s.createItems(rec, txid, plan, tx.AllowedPolicies, number)
		if err != nil {
			return ledger.Record{}, err
		}
		since := s.cache.epoch() // for what the cancellation returns
		c, err := s.commit(ctx, items)
		switch {
		case err != nil:
			return ledger.Record{}, err
		case c == nil:
			s.cache.setNext(tx.Workspace, number+1)
			s.cache.moved(tx.Workspace, "", plan.Ticket.Status)
			s.indexLater(ctx, words)
			s.answered.add(rec.Key)
			return rec, nil
		case c.failedAt(createRecord):
			verdict, old, err := s.existingRecord(ctx, rec.Key, c.old[createRecord], now, w)
			if err != nil {
				return ledger.Record{}, err
			}
			if verdict != recordFree {
				s.answered.add(rec.Key)
			}
			switch verdict {
			case recordOurs:
				// An earlier attempt committed; which number it took is in
				// its result, not here: read the counter afresh next time.
				s.cache.setNext(tx.Workspace, 0)
				s.cache.countsUnknown(tx.Workspace)
				return *old, nil
			case recordTaken:
				return ledger.Record{}, &ledger.ExistsError{Record: *old}
			}
			stalled++
			continue // expired meanwhile: the key is free again
		case c.failedAt(createWorkspace):
			if err := s.counterMoved(ctx, tx, c.old[createWorkspace], since, number); err != nil {
				return ledger.Record{}, err
			}
			if attempt == 0 {
				continue // one stale counter (another instance created): retry at once
			}
			if time.Now().After(giveUp) {
				return ledger.Record{}, fmt.Errorf("dynamo: create in workspace %s lost the race for the ticket counter for %s; nothing was written by this call", tx.Workspace, s.raceFor)
			}
			// Lost again: back off with jitter, so instances racing for
			// one counter do not collide again in step.
		case c.failedAt(createTicket):
			return ledger.Record{}, fmt.Errorf("dynamo: ticket %s already exists although workspace %s's counter is at %d", plan.Ticket.ID, tx.Workspace, number)
		default:
			stalled++ // contention that is not another create's success
		}
		if err := backoff(ctx, attempt); err != nil {
			return ledger.Record{}, err
		}
	}
	return ledger.Record{}, fmt.Errorf("dynamo: create in workspace %s kept conflicting after %d attempts; nothing was written by this call", tx.Workspace, maxAttempts)
}

// warmForCreate answers a create whose workspace counter is not cached: a
// replay, a missing workspace and a refused policy end here; otherwise the
// counter is cached for the transaction.
func (s *Store) warmForCreate(ctx context.Context, tx board.CreateTx, now time.Time) error {
	since := s.cache.epoch()
	found, err := s.batchGet(ctx, []map[string]types.AttributeValue{requestKey(tx.Request.Key), workspaceKey(tx.Workspace)})
	if err != nil {
		return err
	}
	rec, txid, err := s.liveRecord(ctx, found[0], now)
	if err != nil {
		return err
	}
	policyErr := s.checkWorkspace(tx, found[1], since) // caches what the replay's answer needs too
	if judgeRecord(rec, txid, now, writeAttempts{}) == recordTaken {
		return &ledger.ExistsError{Record: *rec}
	}
	return policyErr
}

// checkWorkspace caches what a workspace item says and refuses a create
// the item does not allow.
func (s *Store) checkWorkspace(tx board.CreateTx, item map[string]types.AttributeValue, since uint64) error {
	if item == nil {
		s.cache.forget(tx.Workspace)
		return board.ErrNotFound
	}
	w := decodeWorkspace(item)
	s.cache.remember(w, since)
	s.cache.setNext(tx.Workspace, w.Next)
	return board.CheckPolicy(tx.AllowedPolicies, w.Workspace.AIPolicy)
}

// counterMoved handles a failed condition on the workspace item: it is
// missing, its policy refuses the caller, or (the usual case) another
// instance took the number; then the counter is corrected for the retry.
func (s *Store) counterMoved(ctx context.Context, tx board.CreateTx, old map[string]types.AttributeValue, since uint64, tried int64) error {
	if old == nil { // the endpoint did not return the item
		since = s.cache.epoch()
		item, err := s.getItem(ctx, workspaceKey(tx.Workspace))
		if err != nil {
			return err
		}
		old = item
	}
	if err := s.checkWorkspace(tx, old, since); err != nil {
		return err
	}
	if s.cache.next(tx.Workspace) == tried {
		// Counter and policy both look right now: the item changed back
		// and forth between the write and the read. Try again.
		return backoff(ctx, 0)
	}
	return nil
}

// createItems lays out a create transaction.
// The ticket's title and tag words go in the same transaction (as many as
// fit; worditems.go), the rest is returned for after the commit.
func (s *Store) createItems(rec ledger.Record, txid string, plan board.CreatePlan, allowed []board.AIPolicy, number int64) ([]types.TransactWriteItem, wordChange, error) {
	var words wordChange
	if plan.Ticket.Number != number {
		return nil, words, fmt.Errorf("dynamo: built ticket has number %d, asked for %d", plan.Ticket.Number, number)
	}
	if number > board.MaxTicketNumber {
		// Both stores keep one range of numbers, so a board moves either way.
		return nil, words, board.Errorf(board.CodeConflict, "workspace %s has given out every ticket number it can (up to %d); create the ticket in another workspace", plan.Ticket.Workspace, int64(board.MaxTicketNumber))
	}
	recItem, part, err := recordItems(rec, txid)
	if err != nil {
		return nil, words, err
	}
	ticket, err := ticketItem(plan.Ticket)
	if err != nil {
		return nil, words, err
	}
	if err := checkSize("ticket", ticket); err != nil {
		return nil, words, err
	}
	event, err := eventItem(plan.Event)
	if err != nil {
		return nil, words, err
	}
	cond, names, values := recordCondition(rec.CreatedAt)
	items := []types.TransactWriteItem{
		createRecord:    s.put(recItem, cond, names, values, true),
		createWorkspace: s.counterUpdate(plan.Ticket.Workspace, plan.Ticket.Status, number, allowed),
		createTicket:    s.put(ticket, "attribute_not_exists(#pk)", map[string]string{"#pk": attrPK}, nil, false),
		createEvent:     s.put(event, "", nil, nil, false),
	}
	if part != nil {
		items = append(items, s.put(part, "", nil, nil, false))
	}
	items, words = s.withWords(append(items, s.tagWrites(nil, plan.Ticket)...), createTicket, nil, plan.Ticket)
	return items, words, nil
}

// counterUpdate takes number from the workspace's counter and counts the
// new ticket, only if the counter is still at number and the policy allows
// the caller: both checks in the same transaction as the ticket.
func (s *Store) counterUpdate(slug string, status board.Status, number int64, allowed []board.AIPolicy) types.TransactWriteItem {
	cond, names, values := policyCondition(allowed)
	names["#next"], names["#count"] = attrNextNum, countAttr(status)
	values[":expected"], values[":after"], values[":one"] = num(number), num(number+1), num(1)
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                           aws.String(s.table),
		Key:                                 workspaceKey(slug),
		UpdateExpression:                    aws.String("SET #next = :after ADD #count :one"),
		ConditionExpression:                 aws.String(cond + " AND #next = :expected"),
		ExpressionAttributeNames:            names,
		ExpressionAttributeValues:           values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}
}
