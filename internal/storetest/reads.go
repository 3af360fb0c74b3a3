package storetest

import (
	"slices"
	"strconv"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// This file reads the store back for assertions; every read must succeed.

func (f *fixture) workspace(slug string) board.Workspace {
	f.t.Helper()
	w, err := f.s.GetWorkspace(f.ctx, slug)
	if err != nil {
		f.t.Fatalf("GetWorkspace(%q): %v", slug, err)
	}
	return w
}

func (f *fixture) workspaces() []board.Workspace {
	f.t.Helper()
	ws, err := f.s.ListWorkspaces(f.ctx)
	if err != nil {
		f.t.Fatalf("ListWorkspaces: %v", err)
	}
	return ws
}

// counts checks a workspace's counts through GetWorkspace and ListWorkspaces.
func (f *fixture) counts(slug string, want map[board.Status]int) {
	f.t.Helper()
	assertCounts(f.t, "GetWorkspace("+slug+")", want, f.workspace(slug).Counts)
	i := slices.IndexFunc(f.workspaces(), func(w board.Workspace) bool { return w.Slug == slug })
	if i < 0 {
		f.t.Fatalf("ListWorkspaces does not list %q", slug)
	}
	assertCounts(f.t, "ListWorkspaces "+slug, want, f.workspaces()[i].Counts)
}

// detail reads a ticket with all its notes and history, oldest first: the
// suite's tickets have far fewer than allNotes of either.
func (f *fixture) detail(id string) (board.TicketDetail, board.AIPolicy) {
	f.t.Helper()
	a, err := f.s.ReadTicket(f.ctx, board.TicketRead{ID: id, Notes: allNotes, Events: allNotes})
	if err != nil {
		f.t.Fatalf("ReadTicket(%q): %v", id, err)
	}
	if a.MoreNotes || a.MoreHistory {
		f.t.Fatalf("suite bug: ticket %s has more than %d notes or events", id, allNotes)
	}
	return board.TicketDetail{Ticket: a.Ticket, Notes: a.Notes, History: a.History}, a.Policy
}

// allNotes is more notes and events than any ticket of the suite has.
const allNotes = 1000

// ticket returns the stored ticket.
func (f *fixture) ticket(id string) board.Ticket {
	f.t.Helper()
	d, _ := f.detail(id)
	return d.Ticket
}

func (f *fixture) list(q board.TicketQuery) board.TicketPage {
	f.t.Helper()
	page, err := f.s.ListTickets(f.ctx, q)
	if err != nil {
		f.t.Fatalf("ListTickets(%+v): %v", q, err)
	}
	return page
}

// listIDs lists and returns the ticket ids and the More flag.
func (f *fixture) listIDs(q board.TicketQuery) ([]string, bool) {
	f.t.Helper()
	page := f.list(q)
	return ticketIDs(page.Tickets), page.More
}

func (f *fixture) events(workspace string, limit int) []board.Event {
	f.t.Helper()
	evs, err := f.s.ListEvents(f.ctx, workspace, limit)
	if err != nil {
		f.t.Fatalf("ListEvents(%q, %d): %v", workspace, limit, err)
	}
	return evs
}

func (f *fixture) request(k ledger.Key, now time.Time) ledger.Record {
	f.t.Helper()
	rec, err := f.s.GetRequest(f.ctx, k, now)
	if err != nil {
		f.t.Fatalf("GetRequest(%+v, %s): %v", k, show(now), err)
	}
	return rec
}

// noRequest checks that no unexpired record is stored under k.
func (f *fixture) noRequest(what string, k ledger.Key, now time.Time) {
	f.t.Helper()
	_, err := f.s.GetRequest(f.ctx, k, now)
	assertIs(f.t, what+": GetRequest", err, board.ErrNotFound)
}

// everything is a ListTickets query for a whole (small) workspace.
func everything(workspace string) board.TicketQuery {
	return board.TicketQuery{Workspace: workspace, Limit: board.MaxLimit}
}

// ids builds ticket ids of one workspace, in the order given.
func ids(workspace string, numbers ...int) []string {
	out := make([]string, len(numbers))
	for i, n := range numbers {
		out[i] = workspace + "-" + strconv.Itoa(n)
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }
