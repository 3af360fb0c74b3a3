package storetest

import (
	"errors"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/boardfile"
)

// moveNumbersBounded: a store refuses a moved workspace counter or ticket
// number above board.MaxTicketNumber, singly and in a batch, and a create
// past the last number; the last number itself is kept, and its ticket
// is found by search in its own workspace only (the embedded store keys
// its search index by workspace and number, numbers below 2^40).
func moveNumbersBounded(t *testing.T, f *fixture) {
	m := f.s
	now := f.now()
	const top = board.MaxTicketNumber
	wantInvalid := func(what string, err error) {
		t.Helper()
		var e *board.Error
		if !errors.As(err, &e) || e.Code != board.CodeInvalid {
			t.Errorf("%s: %v; want invalid", what, err)
		}
	}
	_, err := m.PutWorkspace(f.ctx, board.TransferredWorkspace{Slug: "far", Name: "Far", AIPolicy: board.PolicyReadWrite, Next: top + 2})
	wantInvalid("a counter past the last number", err)
	if _, err := f.s.GetWorkspace(f.ctx, "far"); !errors.Is(err, board.ErrNotFound) {
		t.Errorf("the refused workspace was written: %v", err)
	}
	out, err := m.PutWorkspace(f.ctx, board.TransferredWorkspace{Slug: "far", Name: "Far", AIPolicy: board.PolicyReadWrite, Next: top})
	wantPut(t, "a counter at the last number", out, err, board.Added)

	over := newTicket("far", top+1, alice, now, withTitle("Overflowing zebra"))
	_, err = m.PutTicket(f.ctx, over)
	wantInvalid("a ticket numbered 2^40", err)
	if bt, ok := f.s.(boardfile.BatchTarget); ok {
		_, err := bt.PutBatch(f.ctx, []board.TransferredItem{{Ticket: &over}}, now, false)
		wantInvalid("a ticket numbered 2^40 in a batch", err)
	}
	last := newTicket("far", top, alice, now, withTitle("Farthest zebra"))
	out, err = m.PutTicket(f.ctx, last)
	wantPut(t, "a ticket at the last number", out, err, board.Added)
	if page := f.list(board.TicketQuery{Workspace: "far", Query: "zebra"}); len(page.Tickets) != 1 || page.Tickets[0].ID != last.ID {
		t.Errorf("searching far: %d tickets, want %s", len(page.Tickets), last.ID)
	}
	for _, ws := range []string{"inbox", "reference"} {
		if page := f.list(board.TicketQuery{Workspace: ws, Query: "zebra"}); len(page.Tickets) != 0 {
			t.Errorf("searching %s found %s of workspace far", ws, page.Tickets[0].ID)
		}
	}
	c := f.newCreate("far", alice, "past-the-last", f.now())
	_, err = f.s.CreateTicket(f.ctx, c.Tx)
	var e *board.Error
	if !errors.As(err, &e) || e.Code != board.CodeConflict {
		t.Errorf("a create after the last number: %v; want a conflict", err)
	}
}
