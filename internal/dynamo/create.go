package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// Positions of the items in a create transaction. The request record comes
// first: an endpoint that reports only the first failed condition (minidyn)
// then still reports it, and a retry gets its answer whatever else failed.
const (
	createRecord = iota
	createTicket
	createEvent
	createCount
)

// DefaultCounterRaceBudget bounds how long one write keeps retrying after
// meeting other writes on its items; well inside API Gateway's 29 s limit
// (Config.CounterRaceBudget changes it).
const DefaultCounterRaceBudget = 20 * time.Second

// CreateTicket commits the request record, the ticket (on the condition
// that its number is free), the event and the count of the new ticket on
// this instance's count shard, in one transaction. The number comes from
// this instance's leased block (numbers.go). Before that, beforeCreate
// answers the replays this instance can find in one request and makes the
// create's reads at once (createreplay.go): the similar tickets the answer
// carries and, for an AI caller, the request record and the workspace's
// policy in one consistent BatchGetItem, so a create that starts after a
// policy change was acknowledged sees it. No item of the transaction is
// one that every create writes.
func (s *Store) CreateTicket(ctx context.Context, tx board.CreateTx) (ledger.Record, error) {
	now := tx.Request.CreatedAt
	if err := s.beforeCreate(ctx, tx, now); err != nil {
		var exists *ledger.ExistsError
		if errors.As(err, &exists) {
			s.answered.add(tx.Request.Key)
		}
		return ledger.Record{}, err
	}
	// An instance's creates in one workspace take numbers in order.
	unlock, err := s.locks.lock(ctx, "workspace\x00"+tx.Workspace)
	if err != nil {
		return ledger.Record{}, err
	}
	defer unlock()
	ctx = withWriteDeadline(ctx, time.Now().Add(s.raceFor))
	var tries writeAttempts
	var rec ledger.Record
	var number int64
	var words wordChange
	var replay *ledger.Record
	var release func()
	taken := 0 // numbers in a row found holding a ticket
	noWorkspace := false
	committed, err := s.transact(ctx, txn{
		what: "create in workspace " + tx.Workspace,
		// The number is this instance's until a commit uses it: an attempt
		// that wrote nothing leaves it for the next one, so one instance's
		// numbers have no gaps but the ends of its blocks.
		build: func(txid string) ([]types.TransactWriteItem, error) {
			var err error
			if number, err = s.nextNumber(ctx, tx.Workspace); err != nil {
				noWorkspace = errors.Is(err, board.ErrNotFound)
				return nil, err
			}
			plan, err := tx.Build(number)
			if err != nil {
				return nil, err
			}
			rec = tx.Request
			rec.Result = plan.Result
			tries.txids = append(tries.txids, txid)
			shard, free, err := s.takeSlot(ctx, tx.Workspace)
			if err != nil {
				return nil, err
			}
			items, w, err := s.createItems(rec, txid, plan, number, shard)
			if err != nil {
				free()
				return nil, err
			}
			words, release = w, free
			return items, nil
		},
		sent: func() { release() },
		judge: func(ctx context.Context, c *cancellation) (step, error) {
			switch {
			case c.failedAt(createRecord):
				old, _, next, err := s.ownRecord(ctx, rec.Key, c.old[createRecord], now, tries)
				var exists *ledger.ExistsError
				if old != nil || errors.As(err, &exists) {
					s.answered.add(rec.Key)
				}
				replay = old
				return next, err
			case c.failedAt(createTicket):
				// The number holds a ticket already: an import raised the
				// counter past this instance's block, or a commit whose
				// answer was lost used it. Skip it; a second in a row drops
				// the block.
				s.usedNumbers(tx.Workspace, number, 1)
				if taken++; taken > 1 {
					s.dropNumbers(tx.Workspace)
				}
				return stepAgain, nil
			}
			return stepBackoff, nil
		},
	})
	switch {
	case noWorkspace:
		return ledger.Record{}, s.recordFirst(ctx, tx.Request, err)
	case err != nil:
		return ledger.Record{}, err
	case replay != nil:
		// An earlier attempt committed, with this number or an earlier
		// one: every number up to it is used.
		s.usedNumbers(tx.Workspace, number, 1)
		s.cache.countsChanged(tx.Workspace)
		return *replay, nil
	case !committed:
		return ledger.Record{}, fmt.Errorf("dynamo: create in workspace %s ended without an answer", tx.Workspace)
	}
	s.usedNumbers(tx.Workspace, number, 1)
	s.cache.countsChanged(tx.Workspace)
	s.indexLater(ctx, words)
	s.answered.add(rec.Key)
	return rec, nil
}

// recordFirst answers a create refused before its transaction (err) with
// the request's record instead, when one is live: a retry gets its first
// answer whatever changed since.
func (s *Store) recordFirst(ctx context.Context, req ledger.Record, refused error) error {
	rec, err := s.GetRequest(ctx, req.Key, req.CreatedAt)
	switch {
	case err == nil:
		return &ledger.ExistsError{Record: rec}
	case errors.Is(err, board.ErrNotFound):
		return refused
	}
	return err
}

// startCreate reads what an AI caller's create must know before its
// transaction: the request record and the workspace in one consistent
// BatchGetItem (a replay, a missing workspace and a refused policy end
// here). A person's create needs no read: the counter item exists only for
// an existing workspace (initCounter), and workspaces are never deleted.
// The block of numbers is leased under the workspace's lock (nextNumber),
// once in at least ten creates.
func (s *Store) startCreate(ctx context.Context, tx board.CreateTx, now time.Time) error {
	if tx.AllowedPolicies == nil {
		return nil // nextNumber leases, and finds a missing workspace
	}
	found, err := s.batchGet(ctx, []map[string]types.AttributeValue{requestKey(tx.Request.Key), workspaceKey(tx.Workspace)})
	if err != nil {
		return err
	}
	rec, txid, err := s.liveRecord(ctx, found[0], now)
	if err != nil {
		return err
	}
	var policy board.AIPolicy
	if found[1] != nil {
		policy = decodeWorkspace(found[1]).Workspace.AIPolicy
		s.cache.setPolicy(tx.Workspace, policy) // what a replay's answer needs too
	}
	switch {
	case judgeRecord(rec, txid, now, writeAttempts{}) == recordTaken:
		return &ledger.ExistsError{Record: *rec}
	case found[1] == nil:
		return board.ErrNotFound
	}
	return board.CheckPolicy(tx.AllowedPolicies, policy)
}

// createItems lays out a create transaction.
// The ticket's title and tag words go in the same transaction (as many as
// fit; worditems.go), the rest is returned for after the commit.
func (s *Store) createItems(rec ledger.Record, txid string, plan board.CreatePlan, number int64, shard int) ([]types.TransactWriteItem, wordChange, error) {
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
	ticket, err := s.newTicket(plan.Ticket, false)
	if err != nil {
		return nil, words, err
	}
	event, err := eventItem(plan.Event)
	if err != nil {
		return nil, words, err
	}
	cond, names, values := recordCondition(rec.CreatedAt)
	items := []types.TransactWriteItem{
		createRecord: s.put(recItem, cond, names, values, true),
		createTicket: ticket.ticket,
		createEvent:  s.put(event, "", nil, nil, false),
		createCount:  s.countAdd(plan.Ticket.Workspace, shard, moved("", plan.Ticket.Status)),
	}
	if part != nil {
		items = append(items, s.put(part, "", nil, nil, false))
	}
	inbox, err := inboxWrites(s, plan.Inbox)
	if err != nil {
		return nil, words, err
	}
	items = append(items, inbox...)
	items, words = s.withWords(append(items, ticket.tags...), createTicket, nil, plan.Ticket)
	return items, words, nil
}
