package storetest

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// This file builds what the suite writes: request records, tickets and the
// CreateTx / SaveTx values a Service would hand to a store.

// key is a ledger key.
func key(principal, requestID string) ledger.Key {
	return ledger.Key{Principal: principal, RequestID: requestID}
}

// record is a done request record made at now, living for retention. Its
// arguments (and so its fingerprint) depend on intent, so two records with
// different intents under one key are distinguishable.
func record(principal, requestID, tool, intent string, now time.Time) ledger.Record {
	args, err := ledger.CanonicalArgs(map[string]any{"intent": intent, "request_id": requestID})
	if err != nil {
		panic(err)
	}
	return ledger.NewRecord(key(principal, requestID), tool, args, now, retention)
}

// expiringAt moves a record's life so that it expires at t.
func expiringAt(rec ledger.Record, t time.Time) ledger.Record {
	rec.CreatedAt = t.Add(-retention)
	rec.ExpiresAt = t
	return rec
}

// running is a claim: a running record with an owner and a lease.
func running(principal, requestID, owner string, now, leaseUntil time.Time) ledger.Record {
	rec := record(principal, requestID, "import_tickets", "import", now)
	rec.Status = ledger.StatusRunning
	rec.Owner = owner
	rec.LeaseUntil = leaseUntil
	return rec
}

// ticketOpt changes a ticket being built.
type ticketOpt func(*board.Ticket)

func withTitle(s string) ticketOpt            { return func(t *board.Ticket) { t.Title = s } }
func withBody(s string) ticketOpt             { return func(t *board.Ticket) { t.Body = s } }
func withPriority(p board.Priority) ticketOpt { return func(t *board.Ticket) { t.Priority = p } }
func withOwner(s string) ticketOpt            { return func(t *board.Ticket) { t.Owner = &s } }
func withDue(s string) ticketOpt              { return func(t *board.Ticket) { t.Due = &s } }
func withTags(tags ...string) ticketOpt       { return func(t *board.Ticket) { t.Tags = tags } }
func withLinks(l ...board.Link) ticketOpt     { return func(t *board.Ticket) { t.Links = l } }

// withStatus sets the status; done also sets completed_at to created_at.
func withStatus(s board.Status) ticketOpt {
	return func(t *board.Ticket) {
		t.Status = s
		t.CompletedAt = nil
		if s == board.StatusDone {
			at := t.CreatedAt
			t.CompletedAt = &at
		}
	}
}

// newTicket is a ticket as the Service builds it for number n.
func newTicket(workspace string, n int64, createdBy string, now time.Time, opts ...ticketOpt) board.Ticket {
	id := fmt.Sprintf("%s-%d", workspace, n)
	t := board.Ticket{
		ID:        id,
		Workspace: workspace,
		Number:    n,
		Title:     fmt.Sprintf("Ticket %d of %s", n, workspace),
		Status:    board.StatusCandidate,
		Priority:  board.PriorityNormal,
		Tags:      []string{},
		Links:     []board.Link{},
		CreatedBy: createdBy,
		CreatedAt: now,
		UpdatedAt: now,
		URL:       "https://board.example/tickets/" + id,
		Version:   1,
	}
	for _, o := range opts {
		o(&t)
	}
	return t
}

// createCall is one CreateTicket call: the CreateTx and what its Build saw.
type createCall struct {
	Tx board.CreateTx

	mu      sync.Mutex
	numbers []int64          // every number Build was called with
	plan    board.CreatePlan // what the last Build call returned
}

// Numbers returns the numbers Build was called with, in call order.
func (c *createCall) Numbers() []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.numbers)
}

// Plan returns what the last Build call returned.
func (c *createCall) Plan() board.CreatePlan {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.plan
}

// newCreate builds a CreateTx for principal in workspace under requestID
// made at now, allowing every policy.
func (f *fixture) newCreate(workspace, principal, requestID string, now time.Time, opts ...ticketOpt) *createCall {
	return f.newCreateRecord(workspace, record(principal, requestID, board.ToolCreateTicket, "create", now), opts...)
}

// newCreateRecord builds a CreateTx committing rec (its CreatedAt is the
// time of the call).
func (f *fixture) newCreateRecord(workspace string, rec ledger.Record, opts ...ticketOpt) *createCall {
	c := &createCall{}
	eventID := f.id("ev")
	now := rec.CreatedAt
	c.Tx = board.CreateTx{
		Request:   rec,
		Workspace: workspace,
		Build: func(n int64) (board.CreatePlan, error) {
			t := newTicket(workspace, n, rec.Key.Principal, now, opts...)
			ev := board.Event{ID: eventID, Workspace: workspace, TicketID: t.ID, Type: board.EventTicketCreated,
				Author: rec.Key.Principal, Source: board.SourceMCP, RequestID: rec.Key.RequestID, At: now}
			result, err := json.Marshal(board.TicketResult{RequestID: rec.Key.RequestID, Ticket: t})
			if err != nil {
				return board.CreatePlan{}, err
			}
			plan := board.CreatePlan{Ticket: t, Event: ev, Result: result}
			c.mu.Lock()
			c.numbers = append(c.numbers, n)
			c.plan = plan
			c.mu.Unlock()
			return plan, nil
		},
	}
	return c
}

// create commits a new ticket by alice in workspace at the fixture's next
// time and checks the returned record. It returns what was committed.
func (f *fixture) create(workspace, requestID string, opts ...ticketOpt) board.CreatePlan {
	f.t.Helper()
	c := f.newCreate(workspace, alice, requestID, f.now(), opts...)
	return f.mustCreate(c)
}

// mustCreate runs a prepared create, which must succeed.
func (f *fixture) mustCreate(c *createCall) board.CreatePlan {
	f.t.Helper()
	got, err := f.s.CreateTicket(f.ctx, c.Tx)
	if err != nil {
		f.t.Fatalf("CreateTicket(%s, %q): %v", c.Tx.Workspace, c.Tx.Request.Key.RequestID, err)
	}
	plan := c.Plan()
	want := c.Tx.Request
	want.Result = plan.Result
	want.Status = ledger.StatusDone
	assertRecord(f.t, "record returned by CreateTicket", want, got)
	return plan
}

// result marshals what a Service would store as the result of a save.
func saveResult(requestID string, t board.Ticket) []byte {
	raw, err := json.Marshal(board.TicketResult{RequestID: requestID, Ticket: t})
	if err != nil {
		panic(err)
	}
	return raw
}

// cloneTicket copies a ticket deeply enough to change it.
func cloneTicket(t board.Ticket) board.Ticket {
	t.Tags = slices.Clone(t.Tags)
	t.Links = slices.Clone(t.Links)
	if t.Owner != nil {
		v := *t.Owner
		t.Owner = &v
	}
	if t.Due != nil {
		v := *t.Due
		t.Due = &v
	}
	if t.CompletedAt != nil {
		v := *t.CompletedAt
		t.CompletedAt = &v
	}
	return t
}

// updateTx changes fields of before (the event names fields) at now.
func (f *fixture) updateTx(before board.Ticket, principal, requestID string, now time.Time, fields []string, change ticketOpt) board.SaveTx {
	rec := record(principal, requestID, board.ToolUpdateTicket, "update "+before.ID, now)
	after := cloneTicket(before)
	change(&after)
	after.Version = before.Version + 1
	after.UpdatedAt = now
	rec.Result = saveResult(requestID, after)
	return board.SaveTx{
		Request: rec,
		Before:  before,
		After:   &after,
		Event: &board.Event{ID: f.id("ev"), Workspace: before.Workspace, TicketID: before.ID, Type: board.EventTicketUpdated,
			Fields: fields, Author: principal, Source: board.SourceREST, RequestID: requestID, At: now},
	}
}

// retitle is the usual update: a new title.
func (f *fixture) retitle(before board.Ticket, requestID, title string) board.SaveTx {
	return f.updateTx(before, alice, requestID, f.now(), []string{"title"}, withTitle(title))
}

// moveTx moves before to status at now, keeping completed_at right.
func (f *fixture) moveTx(before board.Ticket, requestID string, to board.Status, reason string) board.SaveTx {
	now := f.now()
	rec := record(alice, requestID, board.ToolMoveTicket, "move "+before.ID+" to "+string(to), now)
	after := cloneTicket(before)
	after.Status = to
	after.Version = before.Version + 1
	after.UpdatedAt = now
	switch {
	case to == board.StatusDone:
		at := now
		after.CompletedAt = &at
	case before.Status == board.StatusDone:
		after.CompletedAt = nil
	}
	rec.Result = saveResult(requestID, after)
	return board.SaveTx{
		Request: rec,
		Before:  before,
		After:   &after,
		Event: &board.Event{ID: f.id("ev"), Workspace: before.Workspace, TicketID: before.ID, Type: board.EventTicketMoved,
			From: string(before.Status), To: string(to), Reason: reason,
			Author: alice, Source: board.SourceMCP, RequestID: requestID, At: now},
	}
}

// noteTx adds a note to before at now; the ticket's version moves with it.
func (f *fixture) noteTx(before board.Ticket, requestID, body string) board.SaveTx {
	now := f.now()
	rec := record(alice, requestID, board.ToolAddNote, "note on "+before.ID, now)
	note := &board.Note{ID: f.id("note"), TicketID: before.ID, Body: body, Author: alice, Source: board.SourceWeb, CreatedAt: now}
	after := cloneTicket(before)
	after.Version = before.Version + 1
	after.UpdatedAt = now
	raw, err := json.Marshal(board.NoteResult{RequestID: requestID, Note: *note})
	if err != nil {
		panic(err)
	}
	rec.Result = raw
	return board.SaveTx{
		Request: rec,
		Before:  before,
		After:   &after,
		Note:    note,
		Event: &board.Event{ID: f.id("ev"), Workspace: before.Workspace, TicketID: before.ID, Type: board.EventNoteAdded,
			NoteID: note.ID, Author: alice, Source: board.SourceWeb, RequestID: requestID, At: now},
	}
}

// recordOnlyTx records a call that changes nothing (After, Event, Note nil).
func (f *fixture) recordOnlyTx(before board.Ticket, requestID string) board.SaveTx {
	rec := record(alice, requestID, board.ToolMoveTicket, "move "+before.ID+" to where it is", f.now())
	rec.Result = saveResult(requestID, before)
	return board.SaveTx{Request: rec, Before: before}
}

// save commits tx, which must succeed, and checks the returned record.
func (f *fixture) save(tx board.SaveTx) ledger.Record {
	f.t.Helper()
	got, err := f.s.SaveTicket(f.ctx, tx)
	if err != nil {
		f.t.Fatalf("SaveTicket(%s, %q): %v", tx.Before.ID, tx.Request.Key.RequestID, err)
	}
	assertRecord(f.t, "record returned by SaveTicket", tx.Request, got)
	return got
}
