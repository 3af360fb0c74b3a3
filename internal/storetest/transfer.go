package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/boardfile"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// RunTransfer checks a store's part in moving a board (boardfile.TransferStore):
// every put writes its item and what the store keeps beside it only when
// absent, tells an identical item from a clash, refuses an orphan, and the
// exports stream back exactly what was put; connected agents
// (boardfile.OAuthTransferStore) likewise. newStore is as for Run.
func RunTransfer(t *testing.T, newStore func(t *testing.T) Store) {
	t.Helper()
	tests := []contractTest{
		{"Workspace", moveWorkspace},
		{"Ticket", moveTicket},
		{"Relations", moveRelations},
		{"ClaimedTicket", moveClaimedTicket},
		{"NoteAndEvent", moveNoteAndEvent},
		{"EditedNote", moveEditedNote},
		{"Inbox", moveInbox},
		{"Request", moveRequest},
		{"ExportStreamsWhatWasPut", moveExport},
		{"Batch", moveBatch},
		{"NumbersBounded", moveNumbersBounded},
		{"OAuthGrantAndTokens", moveOAuthGrantAndTokens},
		{"OAuthExport", moveOAuthExport},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newFixture(t, newStore(t)))
		})
	}
	t.Run("Webhooks", func(t *testing.T) {
		t.Parallel()
		moveWebhooks(t, newFixture(t, newStore(t)), newStore)
	})
}

// wantPut checks one put's outcome.
func wantPut(t *testing.T, what string, got board.PutOutcome, err error, want board.PutOutcome) {
	t.Helper()
	if err != nil || got != want {
		t.Fatalf("%s: outcome %d, %v; want %d", what, got, err, want)
	}
}

func moveWorkspace(t *testing.T, f *fixture) {
	m := f.s
	ws := board.TransferredWorkspace{Slug: "ops", Name: "Operations", AIPolicy: board.PolicyReadOnly, Next: 7}
	out, err := m.PutWorkspace(f.ctx, ws)
	wantPut(t, "new workspace", out, err, board.Added)
	out, err = m.PutWorkspace(f.ctx, ws)
	wantPut(t, "the same again", out, err, board.AlreadyThere)
	other := ws
	other.Name = "Other"
	out, err = m.PutWorkspace(f.ctx, other)
	wantPut(t, "other settings", out, err, board.Collision)
	// A seeded workspace that never held a ticket takes the moved settings.
	seeded := board.TransferredWorkspace{Slug: "inbox", Name: "Moved inbox", AIPolicy: board.PolicyHidden, Next: 3}
	out, err = m.PutWorkspace(f.ctx, seeded)
	wantPut(t, "unused seeded workspace", out, err, board.Added)
	w, err := f.s.GetWorkspace(f.ctx, "inbox")
	if err != nil || w.Name != "Moved inbox" || w.AIPolicy != board.PolicyHidden {
		t.Fatalf("inbox after the put: %+v, %v", w, err)
	}
	// Numbering continues from the moved counter.
	if plan := f.create("ops", "after-move"); plan.Ticket.Number != 7 {
		t.Errorf("first create in the moved workspace got number %d, want 7", plan.Ticket.Number)
	}
}

func moveTicket(t *testing.T, f *fixture) {
	m := f.s
	now := f.now()
	tk := newTicket("ops", 5, alice, now, withTags("a", "b"), withTitle("Moved Zebra ticket"), withOwner("ai:bob"), withDue("2026-12-01"), withStatus(board.StatusDoing))
	if _, err := m.PutTicket(f.ctx, tk); !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("ticket without its workspace: %v, want ErrNotFound", err)
	}
	out, err := m.PutWorkspace(f.ctx, board.TransferredWorkspace{Slug: "ops", Name: "Ops", AIPolicy: board.PolicyReadWrite, Next: 1})
	wantPut(t, "workspace", out, err, board.Added)
	out, err = m.PutTicket(f.ctx, tk)
	wantPut(t, "new ticket", out, err, board.Added)
	out, err = m.PutTicket(f.ctx, tk)
	wantPut(t, "the same again", out, err, board.AlreadyThere)
	changed := tk
	changed.Title = "Other"
	out, err = m.PutTicket(f.ctx, changed)
	wantPut(t, "other content", out, err, board.Collision)

	if got := f.ticket(tk.ID); !board.SameTicket(got, tk) {
		t.Errorf("stored ticket %+v, want %+v", got, tk)
	}
	w, err := f.s.GetWorkspace(f.ctx, "ops")
	if err != nil || w.Counts[board.StatusDoing] != 1 || len(w.Counts) > 1 && w.Counts[board.StatusCandidate] != 0 {
		t.Errorf("ops counts %v, %v; want the one ticket counted once under doing", w.Counts, err)
	}
	// Indexed as a created ticket is: by tag, owner and text.
	for _, q := range []board.TicketQuery{{Workspace: "ops", Tag: "b"}, {Workspace: "ops", Owner: "ai:bob"}, {Workspace: "ops", Query: "zebra"}, {Workspace: "ops", Status: board.StatusDoing}} {
		if page := f.list(q); len(page.Tickets) != 1 || page.Tickets[0].ID != tk.ID {
			t.Errorf("listing %+v: %d tickets, want %s", q, len(page.Tickets), tk.ID)
		}
	}
	// The counter moved past the ticket's number.
	if plan := f.create("ops", "next"); plan.Ticket.Number != 6 {
		t.Errorf("create after the put got number %d, want 6", plan.Ticket.Number)
	}
}

// A moved ticket keeps its claim as answers show it (the token's hash is
// the source store's own and does not travel), and lists as claimed while
// the claim lasts.
func moveClaimedTicket(t *testing.T, f *fixture) {
	m := f.s
	now := f.now()
	tk := newTicket("ops", 3, alice, now)
	tk.Claim = &board.Claim{By: "ai:claude", For: "human:alice", Since: now, Until: now.Add(10 * time.Minute)}
	out, err := m.PutWorkspace(f.ctx, board.TransferredWorkspace{Slug: "ops", Name: "Ops", AIPolicy: board.PolicyReadWrite, Next: 1})
	wantPut(t, "workspace", out, err, board.Added)
	out, err = m.PutTicket(f.ctx, tk)
	wantPut(t, "claimed ticket", out, err, board.Added)
	if got := f.ticket(tk.ID); !board.SameTicket(got, tk) || got.Claim == nil {
		t.Fatalf("stored ticket's claim %+v, want %+v", got.Claim, tk.Claim)
	}
	claimed := true
	if page := f.list(board.TicketQuery{Workspace: "ops", Claimed: &claimed, Now: now.Add(time.Minute)}); len(page.Tickets) != 1 {
		t.Errorf("claimed listing while the claim lasts: %d tickets, want 1", len(page.Tickets))
	}
	if page := f.list(board.TicketQuery{Workspace: "ops", Claimed: &claimed, Now: now.Add(10 * time.Minute)}); len(page.Tickets) != 0 {
		t.Errorf("claimed listing once the claim ended: %d tickets, want none", len(page.Tickets))
	}
	changed := tk
	changed.Claim = nil
	out, err = m.PutTicket(f.ctx, changed)
	wantPut(t, "the same ticket without its claim", out, err, board.Collision)
}

func moveNoteAndEvent(t *testing.T, f *fixture) {
	m := f.s
	plan := f.create("inbox", "c1")
	note := board.Note{ID: "n-1", TicketID: plan.Ticket.ID, Body: "moved note", Author: bob, Source: board.SourceREST, CreatedAt: f.now()}
	orphan := note
	orphan.ID, orphan.TicketID = "n-2", "inbox-99"
	if _, err := m.PutNote(f.ctx, orphan); !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("note of a missing ticket: %v, want ErrNotFound", err)
	}
	out, err := m.PutNote(f.ctx, note)
	wantPut(t, "new note", out, err, board.Added)
	out, err = m.PutNote(f.ctx, note)
	wantPut(t, "the same note again", out, err, board.AlreadyThere)
	other := note
	other.Body = "other"
	out, err = m.PutNote(f.ctx, other)
	wantPut(t, "other note content", out, err, board.Collision)

	ev := board.Event{ID: "ev-moved", Workspace: "inbox", TicketID: plan.Ticket.ID, Type: board.EventNoteAdded, NoteID: note.ID,
		Author: bob, OnBehalfOf: "human:ada", Source: board.SourceREST, RequestID: "r-9", At: note.CreatedAt}
	lost := ev
	lost.ID, lost.Workspace, lost.TicketID = "ev-lost", "gone", ""
	if _, err := m.PutEvent(f.ctx, lost); !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("event of a missing workspace: %v, want ErrNotFound", err)
	}
	out, err = m.PutEvent(f.ctx, ev)
	wantPut(t, "new event", out, err, board.Added)
	out, err = m.PutEvent(f.ctx, ev)
	wantPut(t, "the same event again", out, err, board.AlreadyThere)
	events, err := f.s.ListEvents(f.ctx, "inbox", 10)
	if err != nil || len(events) == 0 || !board.SameEvent(events[0], ev) {
		t.Errorf("newest inbox event %+v, %v; want the moved one", events, err)
	}
	d, _ := f.detail(plan.Ticket.ID)
	if len(d.Notes) != 1 || !board.SameNote(d.Notes[0], note) {
		t.Errorf("ticket notes %+v, want the moved note", d.Notes)
	}
}

func moveRequest(t *testing.T, f *fixture) {
	m := f.s
	now := f.now()
	rec := record(alice, "moved-1", board.ToolCreateTicket, "create", now)
	rec.Status, rec.Result = ledger.StatusDone, []byte(`{"request_id":"moved-1","ticket":{"id":"inbox-1","title":"<b> & \"q\""}}`)
	out, err := m.PutRequest(f.ctx, rec, now)
	wantPut(t, "new record", out, err, board.Added)
	got, err := f.s.GetRequest(f.ctx, rec.Key, now)
	if err != nil || !board.SameRecord(got, rec) {
		t.Fatalf("stored record %+v, %v; want %+v", got, err, rec)
	}
	out, err = m.PutRequest(f.ctx, rec, now)
	wantPut(t, "the same again", out, err, board.AlreadyThere)
	other := rec
	other.Fingerprint = "other"
	out, err = m.PutRequest(f.ctx, other, now)
	wantPut(t, "another record under the key", out, err, board.Collision)
	// Once the stored record has expired, its key takes the moved one.
	later := rec.ExpiresAt.Add(time.Second)
	fresh := record(alice, "moved-1", board.ToolCreateTicket, "again", later)
	fresh.Status, fresh.Result = ledger.StatusDone, []byte(`{}`)
	out, err = m.PutRequest(f.ctx, fresh, later)
	wantPut(t, "over an expired record", out, err, board.Added)
	if empty, err := m.BoardEmpty(f.ctx); err != nil || empty {
		t.Errorf("BoardEmpty with a record: %v, %v; want false", empty, err)
	}
}

func moveExport(t *testing.T, f *fixture) {
	m := f.s
	if empty, err := m.BoardEmpty(f.ctx); err != nil || !empty {
		t.Fatalf("BoardEmpty on a fresh store: %v, %v; want true", empty, err)
	}
	var plans []board.CreatePlan
	for i := range 3 {
		plans = append(plans, f.create("inbox", "e"+itoa(i), withTags("x")))
	}
	tx := f.noteTx(plans[1].Ticket, "e-note", "a note")
	f.save(tx)
	running := running(alice, "still-running", "w1", f.now(), f.now().Add(time.Hour))
	if err := f.s.ClaimRequest(f.ctx, running, running.CreatedAt); err != nil {
		t.Fatal(err)
	}

	var tickets []board.Ticket
	if err := m.TransferTickets(f.ctx, "inbox", func(t board.Ticket) error { tickets = append(tickets, t); return nil }); err != nil {
		t.Fatal(err)
	}
	for i, tk := range tickets {
		want := plans[i].Ticket
		if i == 1 {
			want = *tx.After
		}
		if !board.SameTicket(tk, want) || tk.Number != int64(i+1) {
			t.Errorf("exported ticket %d: %+v, want %+v", i, tk, want)
		}
	}
	if len(tickets) != 3 {
		t.Errorf("exported %d tickets, want 3", len(tickets))
	}
	var notes []board.Note
	if err := m.TransferNotes(f.ctx, "inbox", func(n board.Note) error { notes = append(notes, n); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !board.SameNote(notes[0], *tx.Note) {
		t.Errorf("exported notes %+v, want the one note", notes)
	}
	var events []board.Event
	if err := m.TransferEvents(f.ctx, "inbox", func(e board.Event) error { events = append(events, e); return nil }); err != nil {
		t.Fatal(err)
	}
	wantEvents := []board.Event{plans[0].Event, plans[1].Event, plans[2].Event, *tx.Event}
	if len(events) != len(wantEvents) {
		t.Fatalf("exported %d events, want %d", len(events), len(wantEvents))
	}
	for i := range events {
		if !board.SameEvent(events[i], wantEvents[i]) {
			t.Errorf("event %d: %+v, want %+v (oldest first)", i, events[i], wantEvents[i])
		}
	}
	var records []ledger.Record
	if err := m.TransferRequests(f.ctx, f.now(), func(r ledger.Record) error { records = append(records, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(records) != 4 {
		t.Errorf("exported %d records, want the 4 completed ones (not the running one)", len(records))
	}
	for _, r := range records {
		if r.Status != ledger.StatusDone {
			t.Errorf("exported a %s record %s", r.Status, r.Key.RequestID)
		}
	}
	if err := m.TransferRequests(f.ctx, f.now().Add(2*retention), func(r ledger.Record) error {
		t.Errorf("exported %s after its retention", r.Key.RequestID)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var slugs []string
	if err := m.TransferWorkspaces(f.ctx, func(w board.TransferredWorkspace) error { slugs = append(slugs, w.Slug); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(slugs) == 0 || slugs[0] != "inbox" {
		t.Errorf("exported workspaces %v, want the seeded ones by slug", slugs)
	}
}

// moveBatch: a batch put writes new items as the single puts would,
// commits the items before a failing one and nothing from it on, and stops
// after a clash when asked to.
func moveBatch(t *testing.T, f *fixture) {
	bt, ok := f.s.(boardfile.BatchTarget)
	if !ok {
		t.Fatal("the store does not implement boardfile.BatchTarget")
	}
	now := f.now()
	tk := func(n int64, st board.Status) *board.Ticket {
		t := newTicket("inbox", n, alice, now, withStatus(st), withTags("batch"))
		return &t
	}
	outs, err := bt.PutBatch(f.ctx, []board.TransferredItem{{Ticket: tk(1, board.StatusDoing)}, {Ticket: tk(2, board.StatusDoing)}, {Ticket: tk(3, board.StatusDone)}}, now, false)
	if err != nil || len(outs) != 3 || outs[0] != board.Added || outs[2] != board.Added {
		t.Fatalf("a batch of new tickets: %v, %v", outs, err)
	}
	w, err := f.s.GetWorkspace(f.ctx, "inbox")
	if err != nil || w.Counts[board.StatusDoing] != 2 || w.Counts[board.StatusDone] != 1 {
		t.Errorf("inbox counts %v, %v; want 2 doing and 1 done", w.Counts, err)
	}
	if page := f.list(board.TicketQuery{Workspace: "inbox", Tag: "batch"}); len(page.Tickets) != 3 {
		t.Errorf("tag listing after the batch: %d tickets, want 3", len(page.Tickets))
	}
	if plan := f.create("inbox", "after-batch"); plan.Ticket.Number != 4 {
		t.Errorf("create after the batch got number %d, want 4", plan.Ticket.Number)
	}

	note := func(id, ticket string) *board.Note {
		return &board.Note{ID: id, TicketID: ticket, Body: "b", Author: alice, Source: board.SourceMCP, CreatedAt: now}
	}
	outs, err = bt.PutBatch(f.ctx, []board.TransferredItem{{Note: note("n1", "inbox-1")}, {Note: note("n2", "inbox-99")}, {Note: note("n3", "inbox-2")}}, now, false)
	var be *board.BatchError
	if !errors.As(err, &be) || be.Index != 1 || !errors.Is(err, board.ErrNotFound) || len(outs) != 1 || outs[0] != board.Added {
		t.Fatalf("a batch with a note of a missing ticket: %v, %v; want note 0 written and a failure at 1", outs, err)
	}
	if d, _ := f.detail("inbox-2"); len(d.Notes) != 0 {
		t.Errorf("the note after the failing one was written")
	}

	clash := tk(2, board.StatusDoing)
	clash.Title = "other"
	outs, err = bt.PutBatch(f.ctx, []board.TransferredItem{{Ticket: tk(1, board.StatusDoing)}, {Ticket: clash}, {Ticket: tk(9, board.StatusDoing)}}, now, true)
	if err != nil || len(outs) != 2 || outs[0] != board.AlreadyThere || outs[1] != board.Collision {
		t.Fatalf("a batch with a clash: %v, %v; want it to stop after the clash", outs, err)
	}
	if page := f.list(board.TicketQuery{Workspace: "inbox", Tag: "batch"}); len(page.Tickets) != 3 {
		t.Errorf("the ticket after the clash was written: %d tickets tagged, want 3", len(page.Tickets))
	}
}
