package storetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// CreateTicket: numbering, what it persists, counts, and the failures that
// must write nothing.

func createTests() []contractTest {
	return []contractTest{
		{"numbers are 1, 2, 3 per workspace, each sequence independent", testCreateNumbers},
		{"ticket, event and request record are all persisted", testCreatePersists},
		{"nil owner, due, completed_at and empty lists round-trip", testCreateEmptyOptionals},
		{"completed_at and every status round-trip", testCreateCompletedAt},
		{"counts follow ticket statuses", testCreateCounts},
		{"an unexpired record under the key is ExistsError, nothing written", testCreateExisting},
		{"a running record under the key is ExistsError", testCreateExistingRunning},
		{"the same request_id of another principal is independent", testCreateOtherPrincipal},
		{"an expired record is replaced", testCreateExpired},
		{"ExistsError wins over a missing workspace and a denied policy", testCreateExistsPrecedence},
		{"unknown workspace is ErrNotFound, nothing written", testCreateUnknownWorkspace},
		{"a policy not allowed is PolicyError, nothing written", testCreatePolicyDenied},
		{"AllowedPolicies nil allows every policy", testCreateAnyPolicy},
		{"a Build error aborts, nothing written", testCreateBuildError},
	}
}

func detailTests() []contractTest {
	return []contractTest{
		{"unknown ticket is ErrNotFound", testDetailUnknown},
		{"history and notes are oldest first, per ticket", testDetailOrder},
	}
}

func testCreateNumbers(t *testing.T, f *fixture) {
	type step struct {
		workspace string
		want      int64
	}
	steps := []step{{"inbox", 1}, {"inbox", 2}, {"reference", 1}, {"inbox", 3}, {"private", 1}, {"reference", 2}}
	for i, s := range steps {
		c := f.newCreate(s.workspace, alice, "n"+itoa(i), f.now())
		plan := f.mustCreate(c)
		nums := c.Numbers()
		if len(nums) == 0 {
			t.Fatalf("create %d in %s: Build was never called", i, s.workspace)
		}
		for _, n := range nums {
			if n != s.want {
				t.Errorf("create %d in %s: Build called with numbers %v, want only %d (no contention here)", i, s.workspace, nums, s.want)
				break
			}
		}
		d, _ := f.detail(plan.Ticket.ID)
		if d.Ticket.Number != s.want || d.Ticket.ID != plan.Ticket.ID {
			t.Errorf("create %d in %s: stored %s number %d, want %s number %d", i, s.workspace, d.Ticket.ID, d.Ticket.Number, plan.Ticket.ID, s.want)
		}
	}
	got, _ := f.listIDs(everything("inbox"))
	if want := ids("inbox", 3, 2, 1); !slices.Equal(got, want) {
		t.Errorf("inbox lists %v, want %v", got, want)
	}
	got, _ = f.listIDs(everything("reference"))
	if want := ids("reference", 2, 1); !slices.Equal(got, want) {
		t.Errorf("reference lists %v, want %v", got, want)
	}
}

func testCreatePersists(t *testing.T, f *fixture) {
	c := f.newCreate("inbox", alice, "full", f.now(),
		withTitle("Drucker im 2. Stock"), withBody("# Problem\n\nDer Drucker druckt **nichts**.\n"),
		withPriority(board.PriorityHigh), withStatus(board.StatusWaitingAI),
		withOwner("ai:claude"), withDue("2026-12-24"), withTags("hardware", "floor-2", "v1.2_x"),
		withLinks(board.Link{Kind: "url", Ref: "https://example.com/a?b=c", Title: "Vendor page"},
			board.Link{Kind: "article", Ref: "kb-17"}, board.Link{Kind: "task", Ref: "task-9", Title: "Tâche"}))
	plan := f.mustCreate(c)

	want := c.Tx.Request
	want.Result = plan.Result
	want.Status = ledger.StatusDone
	assertRecord(t, "GetRequest after CreateTicket", want, f.request(want.Key, c.Tx.Request.CreatedAt))

	d, policy := f.detail(plan.Ticket.ID)
	assertTicket(t, "ReadTicket ticket", plan.Ticket, d.Ticket)
	assertNotes(t, "ReadTicket notes of a new ticket", nil, d.Notes)
	assertEvents(t, "ReadTicket history of a new ticket", []board.Event{plan.Event}, d.History)
	if policy != board.PolicyReadWrite {
		t.Errorf("ReadTicket policy is %q, want read_write", policy)
	}
	assertEvents(t, "ListEvents(inbox)", []board.Event{plan.Event}, f.events("inbox", 10))
	assertTickets(t, "ListTickets(inbox)", []board.Ticket{plan.Ticket}, f.list(everything("inbox")).Tickets)
	f.counts("inbox", map[board.Status]int{board.StatusWaitingAI: 1})
}

func testCreateEmptyOptionals(t *testing.T, f *fixture) {
	plan := f.create("inbox", "bare", withBody(""))
	if plan.Ticket.Owner != nil || plan.Ticket.Due != nil || plan.Ticket.CompletedAt != nil {
		t.Fatal("suite bug: bare ticket has optional fields set")
	}
	got := f.ticket(plan.Ticket.ID)
	assertTicket(t, "ticket with no optional fields", plan.Ticket, got)
	// A set-then-nil pointer must not come back as a pointer to "".
	if got.Owner != nil || got.Due != nil || got.CompletedAt != nil {
		t.Errorf("nil owner/due/completed_at came back as %s / %s / %s", show(got.Owner), show(got.Due), show(got.CompletedAt))
	}
	// And an owner set next to a nil due keeps each as it was.
	plan2 := f.create("inbox", "owner-only", withOwner("human"))
	assertTicket(t, "ticket with owner but no due", plan2.Ticket, f.ticket(plan2.Ticket.ID))
}

func testCreateCompletedAt(t *testing.T, f *fixture) {
	for i, st := range board.Statuses {
		plan := f.create("inbox", "st"+itoa(i), withStatus(st))
		got := f.ticket(plan.Ticket.ID)
		assertTicket(t, "ticket created in status "+string(st), plan.Ticket, got)
	}
}

func testCreateCounts(t *testing.T, f *fixture) {
	for i, st := range []board.Status{board.StatusCandidate, board.StatusDoing, board.StatusCandidate,
		board.StatusDone, board.StatusHold, board.StatusWaitingHuman} {
		f.create("inbox", "c"+itoa(i), withStatus(st))
	}
	f.create("reference", "r1", withStatus(board.StatusDoing))
	f.counts("inbox", map[board.Status]int{board.StatusCandidate: 2, board.StatusDoing: 1, board.StatusDone: 1,
		board.StatusHold: 1, board.StatusWaitingHuman: 1})
	f.counts("reference", map[board.Status]int{board.StatusDoing: 1})
	f.counts("private", noCounts)
}

func testCreateExisting(t *testing.T, f *fixture) {
	first := f.newCreate("inbox", alice, "same", f.now(), withTitle("first"))
	plan := f.mustCreate(first)
	stored := first.Tx.Request
	stored.Result = plan.Result

	// A retry, even with other arguments (another fingerprint) and another
	// ticket to build, finds the first record.
	again := f.newCreateRecord("inbox", record(alice, "same", board.ToolCreateTicket, "other intent", f.now()), withTitle("second"))
	_, err := f.s.CreateTicket(f.ctx, again.Tx)
	assertExists(t, "second CreateTicket under the same key", err, stored)

	assertTickets(t, "ListTickets after the refused retry", []board.Ticket{plan.Ticket}, f.list(everything("inbox")).Tickets)
	assertEvents(t, "ListEvents after the refused retry", []board.Event{plan.Event}, f.events("inbox", 10))
	assertRecord(t, "GetRequest after the refused retry", stored, f.request(stored.Key, f.now()))
	f.counts("inbox", map[board.Status]int{board.StatusCandidate: 1})

	// The counter did not move: the next create is number 2.
	next := f.create("inbox", "next")
	if next.Ticket.Number != 2 {
		t.Errorf("create after a refused retry got number %d, want 2 (no gap)", next.Ticket.Number)
	}
}

func testCreateExistingRunning(t *testing.T, f *fixture) {
	claim := running(alice, "job", "owner-1", T0, ms(60_000))
	if err := f.s.ClaimRequest(f.ctx, claim, T0); err != nil {
		t.Fatalf("ClaimRequest: %v", err)
	}
	c := f.newCreate("inbox", alice, "job", ms(1))
	_, err := f.s.CreateTicket(f.ctx, c.Tx)
	assertExists(t, "CreateTicket under a running key", err, claim)
	assertTickets(t, "ListTickets", nil, f.list(everything("inbox")).Tickets)
}

func testCreateOtherPrincipal(t *testing.T, f *fixture) {
	a := f.mustCreate(f.newCreate("inbox", alice, "shared-id", f.now(), withTitle("alice's")))
	bc := f.newCreate("inbox", bob, "shared-id", f.now(), withTitle("bob's"))
	b := f.mustCreate(bc)
	if b.Ticket.Number != 2 {
		t.Errorf("bob's create got number %d, want 2", b.Ticket.Number)
	}
	ra := f.request(key(alice, "shared-id"), f.now())
	rb := f.request(key(bob, "shared-id"), f.now())
	if string(ra.Result) != string(a.Result) || string(rb.Result) != string(b.Result) {
		t.Errorf("records of alice and bob under the same request_id are mixed up:\nalice: %s\nbob:   %s", ra.Result, rb.Result)
	}
	if rb.Key.Principal != bob {
		t.Errorf("bob's record has principal %q", rb.Key.Principal)
	}
	assertTickets(t, "ListTickets", []board.Ticket{b.Ticket, a.Ticket}, f.list(everything("inbox")).Tickets)
}

func testCreateExpired(t *testing.T, f *fixture) {
	// The first record expires at T0+500ms: half a second after T0 and
	// within the same second, so text-compared times get it wrong.
	expiry := ms(500)
	old := f.newCreateRecord("inbox", expiringAt(record(alice, "reuse", board.ToolCreateTicket, "old", T0), expiry), withTitle("old"))
	oldPlan := f.mustCreate(old)
	oldRec := old.Tx.Request
	oldRec.Result = oldPlan.Result

	// At T0 (500ms before expiry) the record still answers.
	early := f.newCreateRecord("inbox", record(alice, "reuse", board.ToolCreateTicket, "new", T0), withTitle("too early"))
	_, err := f.s.CreateTicket(f.ctx, early.Tx)
	assertExists(t, "CreateTicket 500ms before the record expires", err, oldRec)

	// At the expiry instant it is gone and the key is free again.
	fresh := f.newCreateRecord("inbox", record(alice, "reuse", board.ToolCreateTicket, "new", expiry), withTitle("new"))
	newPlan := f.mustCreate(fresh)
	if newPlan.Ticket.Number != 2 {
		t.Errorf("create over an expired record got number %d, want 2", newPlan.Ticket.Number)
	}
	want := fresh.Tx.Request
	want.Result = newPlan.Result
	assertRecord(t, "GetRequest after the expired record was replaced", want, f.request(want.Key, expiry))
	// Expiry frees the key, it does not undo the old ticket.
	assertTickets(t, "ListTickets", []board.Ticket{newPlan.Ticket, oldPlan.Ticket}, f.list(everything("inbox")).Tickets)
}

func testCreateExistsPrecedence(t *testing.T, f *fixture) {
	c := f.newCreate("inbox", alice, "k", f.now())
	plan := f.mustCreate(c)
	stored := c.Tx.Request
	stored.Result = plan.Result

	missing := f.newCreate("nope", alice, "k", f.now())
	_, err := f.s.CreateTicket(f.ctx, missing.Tx)
	assertExists(t, "retry naming a missing workspace", err, stored)

	for _, ws := range []string{"reference", "private"} {
		denied := f.newCreate(ws, alice, "k", f.now())
		denied.Tx.AllowedPolicies = []board.AIPolicy{board.PolicyReadWrite}
		_, err = f.s.CreateTicket(f.ctx, denied.Tx)
		assertExists(t, "retry naming the denied workspace "+ws, err, stored)
		assertTickets(t, "ListTickets("+ws+")", nil, f.list(everything(ws)).Tickets)
	}
}

func testCreateUnknownWorkspace(t *testing.T, f *fixture) {
	c := f.newCreate("nope", alice, "k", f.now())
	_, err := f.s.CreateTicket(f.ctx, c.Tx)
	assertIs(t, "CreateTicket(nope)", err, board.ErrNotFound)
	f.noRequest("after CreateTicket(nope)", c.Tx.Request.Key, f.now())
	if got := f.workspaces(); len(got) != 3 {
		t.Errorf("CreateTicket(nope) created a workspace: ListWorkspaces has %d", len(got))
	}
	// The key is still free.
	f.create("inbox", "k")
}

func testCreatePolicyDenied(t *testing.T, f *fixture) {
	for ws, policy := range map[string]board.AIPolicy{"reference": board.PolicyReadOnly, "private": board.PolicyHidden} {
		c := f.newCreate(ws, alice, "deny-"+ws, f.now())
		c.Tx.AllowedPolicies = []board.AIPolicy{board.PolicyReadWrite}
		_, err := f.s.CreateTicket(f.ctx, c.Tx)
		assertPolicyError(t, "CreateTicket("+ws+") allowing read_write only", err, policy)
		f.noRequest("after the denied CreateTicket("+ws+")", c.Tx.Request.Key, f.now())
		assertTickets(t, "ListTickets("+ws+") after the denied create", nil, f.list(everything(ws)).Tickets)
		assertEvents(t, "ListEvents("+ws+") after the denied create", nil, f.events(ws, 10))
		f.counts(ws, noCounts)

		// Allowed now (another list), and the counter did not move.
		ok := f.newCreate(ws, alice, "deny-"+ws, f.now())
		ok.Tx.AllowedPolicies = []board.AIPolicy{board.PolicyReadWrite, policy}
		plan := f.mustCreate(ok)
		if plan.Ticket.Number != 1 {
			t.Errorf("first allowed create in %s got number %d, want 1", ws, plan.Ticket.Number)
		}
	}
}

func testCreateAnyPolicy(t *testing.T, f *fixture) {
	for _, ws := range []string{"inbox", "reference", "private"} {
		plan := f.create(ws, "any-"+ws) // AllowedPolicies nil
		assertTicket(t, "ticket created in "+ws, plan.Ticket, f.ticket(plan.Ticket.ID))
	}
}

func testCreateBuildError(t *testing.T, f *fixture) {
	boom := errors.New("build failed on purpose")
	rec := record(alice, "broken", board.ToolCreateTicket, "create", f.now())
	calls := 0
	_, err := f.s.CreateTicket(f.ctx, board.CreateTx{Request: rec, Workspace: "inbox",
		Build: func(int64) (board.CreatePlan, error) { calls++; return board.CreatePlan{}, boom }})
	if err == nil {
		t.Fatal("CreateTicket succeeded although Build failed")
	}
	if !errors.Is(err, boom) {
		t.Errorf("CreateTicket returned %v; want the Build error wrapped (errors.Is)", err)
	}
	if calls == 0 {
		t.Errorf("Build was never called")
	}
	f.noRequest("after a failed Build", rec.Key, f.now())
	assertTickets(t, "ListTickets after a failed Build", nil, f.list(everything("inbox")).Tickets)
	assertEvents(t, "ListEvents after a failed Build", nil, f.events("inbox", 10))
	f.counts("inbox", noCounts)
	plan := f.create("inbox", "broken")
	if plan.Ticket.Number != 1 {
		t.Errorf("create after a failed Build got number %d, want 1 (no gap)", plan.Ticket.Number)
	}
}

func testDetailUnknown(t *testing.T, f *fixture) {
	f.create("inbox", "one")
	for _, id := range []string{"inbox-2", "inbox-10", "reference-1", "nope-1"} {
		_, err := f.s.ReadTicket(f.ctx, board.TicketRead{ID: id, Notes: 10, Events: 10})
		assertIs(t, "ReadTicket("+id+")", err, board.ErrNotFound)
	}
}

func testDetailOrder(t *testing.T, f *fixture) {
	a := f.create("inbox", "a")
	b := f.create("inbox", "b")
	n1 := f.noteTx(a.Ticket, "n1", "first note on a")
	f.save(n1)
	nb := f.noteTx(b.Ticket, "nb", "note on b")
	f.save(nb)
	mv := f.moveTx(*n1.After, "mv", board.StatusDoing, "started")
	f.save(mv)
	n2 := f.noteTx(*mv.After, "n2", "second note on a")
	f.save(n2)

	d, _ := f.detail(a.Ticket.ID)
	assertTicket(t, "ticket a", *n2.After, d.Ticket)
	assertNotes(t, "notes of a (oldest first)", []board.Note{*n1.Note, *n2.Note}, d.Notes)
	assertEvents(t, "history of a (oldest first)", []board.Event{a.Event, *n1.Event, *mv.Event, *n2.Event}, d.History)

	d, _ = f.detail(b.Ticket.ID)
	assertNotes(t, "notes of b", []board.Note{*nb.Note}, d.Notes)
	assertEvents(t, "history of b", []board.Event{b.Event, *nb.Event}, d.History)
}
