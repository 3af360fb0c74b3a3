package storetest

import (
	"errors"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/ledger"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// SaveTicket: the version condition, what it persists, and the failures
// that must write nothing.

func saveTests() []contractTest {
	return []contractTest{
		{"an update writes the ticket, the event and the record", testSaveUpdate},
		{"a stale Before is ErrVersionConflict, nothing written", testSaveVersionConflict},
		{"After nil writes only the request record", testSaveRecordOnly},
		{"After nil from a stale Before is ErrVersionConflict, nothing written", testSaveRecordOnlyStale},
		{"a note is persisted with its event", testSaveNote},
		{"moving status changes counts and completed_at", testSaveMove},
		{"clearing owner and due round-trips", testSaveClearOptionals},
		{"an unexpired record under the key is ExistsError, nothing written", testSaveExisting},
		{"ExistsError wins over a version conflict and a missing ticket", testSaveExistsPrecedence},
		{"an expired record is replaced", testSaveExpired},
		{"a missing ticket is ErrNotFound, nothing written", testSaveMissingTicket},
		{"a policy outside AllowedPolicies is PolicyError, nothing written", testSavePolicy},
	}
}

func testSaveUpdate(t *testing.T, f *fixture) {
	plan := f.create("inbox", "c")
	tx := f.updateTx(plan.Ticket, alice, "u", f.now(), []string{"title", "tags", "links", "priority"}, func(t *board.Ticket) {
		t.Title = "renamed"
		t.Tags = []string{"x", "y"}
		t.Links = []board.Link{{Kind: "article", Ref: "kb-1", Title: "KB"}}
		t.Priority = board.PriorityUrgent
	})
	f.save(tx)

	d, _ := f.detail(plan.Ticket.ID)
	assertTicket(t, "ticket after the update", *tx.After, d.Ticket)
	assertEvents(t, "history after the update", []board.Event{plan.Event, *tx.Event}, d.History)
	assertRecord(t, "GetRequest of the update", tx.Request, f.request(tx.Request.Key, tx.Request.CreatedAt))
	assertEvents(t, "ListEvents(inbox)", []board.Event{*tx.Event, plan.Event}, f.events("inbox", 10))
	assertTickets(t, "ListTickets(inbox)", []board.Ticket{*tx.After}, f.list(everything("inbox")).Tickets)

	// A second update from the stored state succeeds (version 2 -> 3).
	tx2 := f.retitle(d.Ticket, "u2", "renamed again")
	f.save(tx2)
	if got := f.ticket(plan.Ticket.ID); got.Version != 3 || got.Title != "renamed again" {
		t.Errorf("after two updates: version %d title %q, want 3 %q", got.Version, got.Title, "renamed again")
	}
}

func testSaveVersionConflict(t *testing.T, f *fixture) {
	plan := f.create("inbox", "c")
	first := f.retitle(plan.Ticket, "u1", "first")
	f.save(first)
	stored := *first.After

	for _, tc := range []struct {
		name   string
		before board.Ticket
	}{
		{"Before one version behind", plan.Ticket},
		{"Before one version ahead", func() board.Ticket { b := stored; b.Version++; return b }()},
	} {
		tx := f.retitle(tc.before, "stale-"+itoa(int(tc.before.Version)), "lost")
		_, err := f.s.SaveTicket(f.ctx, tx)
		assertIs(t, "SaveTicket with "+tc.name, err, board.ErrVersionConflict)
		f.noRequest("after the conflicting save ("+tc.name+")", tx.Request.Key, tx.Request.CreatedAt)
	}
	note := f.noteTx(plan.Ticket, "stale-note", "lost note")
	_, err := f.s.SaveTicket(f.ctx, note)
	assertIs(t, "SaveTicket of a note from a stale Before", err, board.ErrVersionConflict)
	f.noRequest("after the conflicting note", note.Request.Key, note.Request.CreatedAt)

	d, _ := f.detail(plan.Ticket.ID)
	assertTicket(t, "ticket after the conflicts", stored, d.Ticket)
	assertNotes(t, "notes after the conflicting note", nil, d.Notes)
	assertEvents(t, "history after the conflicts", []board.Event{plan.Event, *first.Event}, d.History)
	assertEvents(t, "ListEvents after the conflicts", []board.Event{*first.Event, plan.Event}, f.events("inbox", 10))
}

func testSaveRecordOnly(t *testing.T, f *fixture) {
	plan := f.create("inbox", "c")
	tx := f.recordOnlyTx(plan.Ticket, "noop")
	f.save(tx)
	assertRecord(t, "GetRequest of the record-only save", tx.Request, f.request(tx.Request.Key, tx.Request.CreatedAt))
	d, _ := f.detail(plan.Ticket.ID)
	assertTicket(t, "ticket after a record-only save", plan.Ticket, d.Ticket)
	assertEvents(t, "history after a record-only save", []board.Event{plan.Event}, d.History)
	assertNotes(t, "notes after a record-only save", nil, d.Notes)
	assertEvents(t, "ListEvents after a record-only save", []board.Event{plan.Event}, f.events("inbox", 10))
	// The ticket's version did not move: an update from the original succeeds.
	f.save(f.retitle(plan.Ticket, "u", "still version 1 before this"))
}

// testSaveRecordOnlyStale: a call that changes nothing stores a result
// computed from Before (the ticket as it was), so the version check holds
// for it as for any save: an old snapshot is never acknowledged.
func testSaveRecordOnlyStale(t *testing.T, f *fixture) {
	plan := f.create("inbox", "c")
	moved := f.retitle(plan.Ticket, "u", "moved on")
	f.save(moved)

	stale := f.recordOnlyTx(plan.Ticket, "noop-stale") // computed from version 1; stored is 2
	_, err := f.s.SaveTicket(f.ctx, stale)
	assertIs(t, "record-only SaveTicket from a stale Before", err, board.ErrVersionConflict)
	f.noRequest("after the stale record-only save", stale.Request.Key, stale.Request.CreatedAt)

	gone := plan.Ticket
	gone.ID, gone.Number = "inbox-99", 99
	missing := f.recordOnlyTx(gone, "noop-missing")
	_, err = f.s.SaveTicket(f.ctx, missing)
	assertIs(t, "record-only SaveTicket of a missing ticket", err, board.ErrNotFound)
	f.noRequest("after the record-only save of a missing ticket", missing.Request.Key, missing.Request.CreatedAt)

	// From the stored version it is recorded, and changes nothing.
	fresh := f.recordOnlyTx(*moved.After, "noop-fresh")
	f.save(fresh)
	assertTicket(t, "ticket after the record-only saves", *moved.After, f.ticket(plan.Ticket.ID))
}

func testSaveNote(t *testing.T, f *fixture) {
	plan := f.create("inbox", "c")
	n1 := f.noteTx(plan.Ticket, "n1", "Erste Notiz — mit Ümlauten")
	f.save(n1)
	n2 := f.noteTx(*n1.After, "n2", "second\n\nwith *markdown*")
	f.save(n2)
	d, _ := f.detail(plan.Ticket.ID)
	assertTicket(t, "ticket after two notes", *n2.After, d.Ticket)
	assertNotes(t, "notes", []board.Note{*n1.Note, *n2.Note}, d.Notes)
	assertEvents(t, "history", []board.Event{plan.Event, *n1.Event, *n2.Event}, d.History)
	assertRecord(t, "GetRequest of the note", n2.Request, f.request(n2.Request.Key, n2.Request.CreatedAt))
}

func testSaveMove(t *testing.T, f *fixture) {
	a := f.create("inbox", "a")
	b := f.create("inbox", "b")
	f.counts("inbox", map[board.Status]int{board.StatusCandidate: 2})

	done := f.moveTx(a.Ticket, "m1", board.StatusDone, "finished")
	f.save(done)
	if done.After.CompletedAt == nil {
		t.Fatal("suite bug: move to done without completed_at")
	}
	assertTicket(t, "ticket moved to done", *done.After, f.ticket(a.Ticket.ID))
	f.counts("inbox", map[board.Status]int{board.StatusCandidate: 1, board.StatusDone: 1})

	back := f.moveTx(*done.After, "m2", board.StatusDoing, "reopened")
	f.save(back)
	got := f.ticket(a.Ticket.ID)
	assertTicket(t, "ticket moved out of done", *back.After, got)
	if got.CompletedAt != nil {
		t.Errorf("completed_at is %s after leaving done, want nil", show(got.CompletedAt))
	}
	f.counts("inbox", map[board.Status]int{board.StatusCandidate: 1, board.StatusDoing: 1})

	f.save(f.moveTx(b.Ticket, "m3", board.StatusWaitingAI, ""))
	f.counts("inbox", map[board.Status]int{board.StatusDoing: 1, board.StatusWaitingAI: 1})
	d, _ := f.detail(a.Ticket.ID)
	assertEvents(t, "history of the moved ticket", []board.Event{a.Event, *done.Event, *back.Event}, d.History)
}

func testSaveClearOptionals(t *testing.T, f *fixture) {
	plan := f.create("inbox", "c", withOwner("ai:claude"), withDue("2026-12-01"), withTags("a"), withLinks(board.Link{Kind: "article", Ref: "x"}))
	tx := f.updateTx(plan.Ticket, alice, "clear", f.now(), []string{"owner", "due", "tags", "links"}, func(t *board.Ticket) {
		t.Owner, t.Due, t.Tags, t.Links = nil, nil, []string{}, []board.Link{}
	})
	f.save(tx)
	got := f.ticket(plan.Ticket.ID)
	assertTicket(t, "ticket with owner and due cleared", *tx.After, got)
	if got.Owner != nil || got.Due != nil {
		t.Errorf("cleared owner/due came back as %s / %s, want nil", show(got.Owner), show(got.Due))
	}
	ids, _ := f.listIDs(board.TicketQuery{Workspace: "inbox", Owner: "ai:claude", Limit: 10})
	if len(ids) != 0 {
		t.Errorf("owner filter still finds %v after the owner was cleared", ids)
	}
	if due := f.summary("inbox", "2026-12-31").DueSoon; len(due) != 0 {
		t.Errorf("due_soon still lists %v after the due date was cleared", ticketIDs(due))
	}
	ids, _ = f.listIDs(board.TicketQuery{Workspace: "inbox", Tag: "a", Limit: 10})
	if len(ids) != 0 {
		t.Errorf("tag filter still finds %v after the tags were cleared", ids)
	}
}

func testSaveExisting(t *testing.T, f *fixture) {
	plan := f.create("inbox", "c")
	first := f.retitle(plan.Ticket, "u", "first")
	f.save(first)

	// Same key, a fresh Before (so only the key can refuse it).
	again := f.retitle(*first.After, "u", "second")
	_, err := f.s.SaveTicket(f.ctx, again)
	assertExists(t, "SaveTicket under a used key", err, first.Request)

	// A key first used by CreateTicket answers a save too.
	created := f.retitle(*first.After, "c", "third")
	_, err = f.s.SaveTicket(f.ctx, created)
	want := record(alice, "c", board.ToolCreateTicket, "create", plan.Ticket.CreatedAt)
	want.Result = plan.Result
	assertExists(t, "SaveTicket under a key used by CreateTicket", err, want)

	d, _ := f.detail(plan.Ticket.ID)
	assertTicket(t, "ticket after the refused saves", *first.After, d.Ticket)
	assertEvents(t, "history after the refused saves", []board.Event{plan.Event, *first.Event}, d.History)
	assertRecord(t, "GetRequest after the refused save", first.Request, f.request(first.Request.Key, f.now()))
}

func testSaveExistsPrecedence(t *testing.T, f *fixture) {
	plan := f.create("inbox", "c")
	first := f.retitle(plan.Ticket, "u", "first")
	f.save(first)

	stale := f.retitle(plan.Ticket, "u", "stale") // Before is version 1, stored is 2
	_, err := f.s.SaveTicket(f.ctx, stale)
	assertExists(t, "retry whose Before is stale", err, first.Request)

	gone := plan.Ticket
	gone.ID, gone.Number = "inbox-99", 99
	missing := f.retitle(gone, "u", "missing")
	_, err = f.s.SaveTicket(f.ctx, missing)
	assertExists(t, "retry naming a missing ticket", err, first.Request)

	assertTicket(t, "ticket", *first.After, f.ticket(plan.Ticket.ID))
}

func testSaveExpired(t *testing.T, f *fixture) {
	plan := f.create("inbox", "c") // at T0 + 1.001s
	expiry := ms(3_500)
	oldTx := f.updateTx(plan.Ticket, alice, "reuse", expiry.Add(-retention), []string{"title"}, withTitle("old"))
	oldTx.Request = expiringAt(oldTx.Request, expiry)
	// Sanity: this old record was made (logically) before the ticket; the
	// store does not care, it only checks the key and the version.
	f.save(oldTx)

	early := f.updateTx(*oldTx.After, alice, "reuse", ms(3_000), []string{"title"}, withTitle("early"))
	_, err := f.s.SaveTicket(f.ctx, early)
	assertExists(t, "SaveTicket 500ms before the record expires", err, oldTx.Request)

	late := f.updateTx(*oldTx.After, alice, "reuse", expiry, []string{"title"}, withTitle("late"))
	f.save(late)
	assertRecord(t, "GetRequest after the expired record was replaced", late.Request, f.request(late.Request.Key, expiry))
	assertTicket(t, "ticket", *late.After, f.ticket(plan.Ticket.ID))
}

func testSaveMissingTicket(t *testing.T, f *fixture) {
	plan := f.create("inbox", "c")
	for _, id := range []struct {
		id string
		n  int64
		ws string
	}{{"inbox-2", 2, "inbox"}, {"reference-1", 1, "reference"}, {"nope-1", 1, "nope"}} {
		gone := plan.Ticket
		gone.ID, gone.Number, gone.Workspace = id.id, id.n, id.ws
		tx := f.retitle(gone, "save-"+id.id, "ghost")
		_, err := f.s.SaveTicket(f.ctx, tx)
		assertIs(t, "SaveTicket of missing "+id.id, err, board.ErrNotFound)
		f.noRequest("after saving missing "+id.id, tx.Request.Key, tx.Request.CreatedAt)
		_, err = f.s.ReadTicket(f.ctx, board.TicketRead{ID: id.id, Notes: 10, Events: 10})
		assertIs(t, "ReadTicket("+id.id+") after the failed save", err, board.ErrNotFound)
	}
	assertEvents(t, "ListEvents(inbox)", []board.Event{plan.Event}, f.events("inbox", 10))
	assertTickets(t, "ListTickets(inbox)", []board.Ticket{plan.Ticket}, f.list(everything("inbox")).Tickets)
}

// testSavePolicy: the policy is checked at commit, so a workspace made
// read-only or hidden after LoadForWrite refuses the write; the record
// still wins over the policy.
func testSavePolicy(t *testing.T, f *fixture) {
	plan := f.create("inbox", "c")
	onlyRW := []board.AIPolicy{board.PolicyReadWrite}
	for _, policy := range []board.AIPolicy{board.PolicyReadOnly, board.PolicyHidden} {
		ev := board.Event{ID: f.id("ev"), Workspace: "inbox", Type: board.EventWorkspaceUpdated, Author: "human", Source: board.SourceWeb, At: f.now()}
		if err := f.s.SetWorkspacePolicy(f.ctx, "inbox", policy, ev); err != nil {
			t.Fatal(err)
		}
		for name, tx := range map[string]board.SaveTx{
			"update":      f.retitle(plan.Ticket, "p-u-"+string(policy), "refused"),
			"move":        f.moveTx(plan.Ticket, "p-m-"+string(policy), board.StatusDone, ""),
			"record only": f.recordOnlyTx(plan.Ticket, "p-r-"+string(policy)),
		} {
			tx.AllowedPolicies = onlyRW
			_, err := f.s.SaveTicket(f.ctx, tx)
			var denied *board.PolicyError
			if !errors.As(err, &denied) || denied.Policy != policy {
				t.Errorf("%s under %s: err = %v, want PolicyError{%s}", name, policy, err, policy)
			}
			f.noRequest(name+" refused by policy", tx.Request.Key, tx.Request.CreatedAt)
		}
	}
	if got := f.ticket(plan.Ticket.ID); got.Version != plan.Ticket.Version || got.Status != plan.Ticket.Status {
		t.Errorf("refused saves changed the ticket: %+v", got)
	}
	f.counts("inbox", map[board.Status]int{board.StatusCandidate: 1})

	// Any policy is fine when AllowedPolicies is nil (a person's write).
	open := f.retitle(plan.Ticket, "p-open", "by a person")
	f.save(open)
	if got := f.ticket(plan.Ticket.ID); got.Title != "by a person" {
		t.Errorf("unrestricted save under hidden: title %q", got.Title)
	}
	// An existing record answers before the policy does.
	again := f.retitle(plan.Ticket, "p-open", "by a person")
	again.AllowedPolicies = onlyRW
	_, err := f.s.SaveTicket(f.ctx, again)
	var exists *ledger.ExistsError
	if !errors.As(err, &exists) {
		t.Errorf("retry of a committed save under a refusing policy: err = %v, want ExistsError", err)
	}
}
