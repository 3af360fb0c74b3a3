package storetest

import (
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Seeding, GetWorkspace, ListWorkspaces and SetWorkspacePolicy.

func workspaceTests() []contractTest {
	return []contractTest{
		{"fresh store lists the seeded workspaces by slug", testSeededWorkspaces},
		{"GetWorkspace returns each seeded workspace", testGetSeededWorkspace},
		{"GetWorkspace of an unknown slug is ErrNotFound", testGetWorkspaceUnknown},
		{"SetWorkspacePolicy changes the policy and appends an event", testSetWorkspacePolicy},
		{"SetWorkspacePolicy is read by every later call", testPolicyReadLive},
		{"SetWorkspacePolicy of an unknown slug is ErrNotFound", testSetWorkspacePolicyUnknown},
		{"WorkspacePolicy reports each policy, and a change through this store at once", testWorkspacePolicy},
		{"Ping answers on a working store and writes nothing", testPing},
	}
}

// seeded is the fresh store's workspaces in slug order.
func seeded() []board.Workspace {
	return []board.Workspace{
		{Slug: "inbox", Name: "Inbox", AIPolicy: board.PolicyReadWrite},
		{Slug: "private", Name: "Private", AIPolicy: board.PolicyHidden},
		{Slug: "reference", Name: "Reference", AIPolicy: board.PolicyReadOnly},
	}
}

func assertWorkspace(t *testing.T, what string, want, got board.Workspace) {
	t.Helper()
	var d differ
	d.str("Slug", want.Slug, got.Slug)
	d.str("Name", want.Name, got.Name)
	d.str("AIPolicy", string(want.AIPolicy), string(got.AIPolicy))
	d.report(t, what)
}

func testSeededWorkspaces(t *testing.T, f *fixture) {
	got := f.workspaces()
	want := seeded()
	if len(got) != len(want) {
		t.Fatalf("fresh store lists %d workspaces %v, want exactly %d (inbox, private, reference)", len(got), got, len(want))
	}
	for i := range want {
		assertWorkspace(t, "ListWorkspaces["+want[i].Slug+"]", want[i], got[i])
		assertCounts(t, "ListWorkspaces "+want[i].Slug, noCounts, got[i].Counts)
	}
	// The seed is the one board.DefaultWorkspaces describes.
	for _, w := range board.DefaultWorkspaces() {
		assertWorkspace(t, "GetWorkspace("+w.Slug+") vs board.DefaultWorkspaces", w, f.workspace(w.Slug))
	}
}

func testGetSeededWorkspace(t *testing.T, f *fixture) {
	for _, w := range seeded() {
		got := f.workspace(w.Slug)
		assertWorkspace(t, "GetWorkspace("+w.Slug+")", w, got)
		assertCounts(t, "GetWorkspace("+w.Slug+")", noCounts, got.Counts)
	}
}

func testGetWorkspaceUnknown(t *testing.T, f *fixture) {
	for _, slug := range []string{"nope", "inbox2", "inbo"} {
		_, err := f.s.GetWorkspace(f.ctx, slug)
		assertIs(t, "GetWorkspace("+slug+")", err, board.ErrNotFound)
	}
}

func testSetWorkspacePolicy(t *testing.T, f *fixture) {
	ev1 := board.Event{ID: f.id("ev"), Workspace: "inbox", Type: board.EventWorkspaceUpdated, Fields: []string{"ai_policy"},
		Author: human, Source: board.SourceWeb, At: f.now()}
	if err := f.s.SetWorkspacePolicy(f.ctx, "inbox", board.PolicyHidden, ev1); err != nil {
		t.Fatalf("SetWorkspacePolicy(inbox, hidden): %v", err)
	}
	if got := f.workspace("inbox").AIPolicy; got != board.PolicyHidden {
		t.Errorf("after SetWorkspacePolicy(inbox, hidden) GetWorkspace says %q", got)
	}
	want := seeded()
	want[0].AIPolicy = board.PolicyHidden
	got := f.workspaces()
	if len(got) != len(want) {
		t.Fatalf("after SetWorkspacePolicy ListWorkspaces has %d workspaces, want %d", len(got), len(want))
	}
	for i := range want {
		assertWorkspace(t, "ListWorkspaces["+want[i].Slug+"] after SetWorkspacePolicy", want[i], got[i])
	}
	assertEvents(t, "ListEvents(inbox) after SetWorkspacePolicy", []board.Event{ev1}, f.events("inbox", 10))
	assertEvents(t, "ListEvents(reference) after SetWorkspacePolicy of inbox", nil, f.events("reference", 10))

	ev2 := board.Event{ID: f.id("ev"), Workspace: "inbox", Type: board.EventWorkspaceUpdated, Fields: []string{"ai_policy"},
		Author: human, Source: board.SourceREST, At: f.now()}
	if err := f.s.SetWorkspacePolicy(f.ctx, "inbox", board.PolicyReadOnly, ev2); err != nil {
		t.Fatalf("SetWorkspacePolicy(inbox, read_only): %v", err)
	}
	if got := f.workspace("inbox").AIPolicy; got != board.PolicyReadOnly {
		t.Errorf("after SetWorkspacePolicy(inbox, read_only) GetWorkspace says %q", got)
	}
	assertEvents(t, "ListEvents(inbox) after two policy changes (newest first)", []board.Event{ev2, ev1}, f.events("inbox", 10))
}

func testPolicyReadLive(t *testing.T, f *fixture) {
	plan := f.create("inbox", "r1")
	ev := board.Event{ID: f.id("ev"), Workspace: "inbox", Type: board.EventWorkspaceUpdated, Fields: []string{"ai_policy"},
		Author: human, Source: board.SourceWeb, At: f.now()}
	if err := f.s.SetWorkspacePolicy(f.ctx, "inbox", board.PolicyReadOnly, ev); err != nil {
		t.Fatalf("SetWorkspacePolicy: %v", err)
	}
	if _, p := f.detail(plan.Ticket.ID); p != board.PolicyReadOnly {
		t.Errorf("ReadTicket policy after the change is %q, want read_only", p)
	}
	if p := f.list(everything("inbox")).Policy; p != board.PolicyReadOnly {
		t.Errorf("ListTickets policy after the change is %q, want read_only", p)
	}
	wc, err := f.s.LoadForWrite(f.ctx, key(alice, "r2"), plan.Ticket.ID, f.now())
	if err != nil {
		t.Fatalf("LoadForWrite: %v", err)
	}
	if wc.Policy != board.PolicyReadOnly {
		t.Errorf("LoadForWrite policy after the change is %q, want read_only", wc.Policy)
	}
	c := f.newCreate("inbox", alice, "r3", f.now())
	c.Tx.AllowedPolicies = []board.AIPolicy{board.PolicyReadWrite}
	_, err = f.s.CreateTicket(f.ctx, c.Tx)
	assertPolicyError(t, "CreateTicket in inbox after it became read_only", err, board.PolicyReadOnly)
	// The ticket and its history are untouched by a policy change.
	d, _ := f.detail(plan.Ticket.ID)
	assertTicket(t, "ticket after the policy change", plan.Ticket, d.Ticket)
	assertEvents(t, "ListEvents(inbox)", []board.Event{ev, plan.Event}, f.events("inbox", 10))
}

func testSetWorkspacePolicyUnknown(t *testing.T, f *fixture) {
	ev := board.Event{ID: f.id("ev"), Workspace: "nope", Type: board.EventWorkspaceUpdated, Fields: []string{"ai_policy"},
		Author: human, Source: board.SourceWeb, At: f.now()}
	err := f.s.SetWorkspacePolicy(f.ctx, "nope", board.PolicyReadWrite, ev)
	assertIs(t, "SetWorkspacePolicy(nope)", err, board.ErrNotFound)
	if got := f.workspaces(); len(got) != 3 {
		t.Errorf("SetWorkspacePolicy of an unknown slug created a workspace: ListWorkspaces has %d", len(got))
	}
	_, err = f.s.GetWorkspace(f.ctx, "nope")
	assertIs(t, "GetWorkspace(nope) after SetWorkspacePolicy(nope)", err, board.ErrNotFound)
}

func testWorkspacePolicy(t *testing.T, f *fixture) {
	for _, w := range seeded() {
		got, err := f.s.WorkspacePolicy(f.ctx, w.Slug)
		if err != nil || got != w.AIPolicy {
			t.Errorf("WorkspacePolicy(%s) = %q %v, want %q", w.Slug, got, err, w.AIPolicy)
		}
	}
	_, err := f.s.WorkspacePolicy(f.ctx, "nope")
	assertIs(t, "WorkspacePolicy of an unknown slug", err, board.ErrNotFound)
	ev := board.Event{ID: f.id("ev"), Workspace: "inbox", Type: board.EventWorkspaceUpdated, Author: human, Source: board.SourceWeb, At: f.now()}
	if err := f.s.SetWorkspacePolicy(f.ctx, "inbox", board.PolicyHidden, ev); err != nil {
		t.Fatal(err)
	}
	if got, err := f.s.WorkspacePolicy(f.ctx, "inbox"); err != nil || got != board.PolicyHidden {
		t.Errorf("WorkspacePolicy(inbox) after hiding it through the same store = %q %v, want hidden", got, err)
	}
}

func testPing(t *testing.T, f *fixture) {
	if err := f.s.Ping(f.ctx); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	assertEvents(t, "ListEvents(inbox) after Ping", nil, f.events("inbox", 10))
	for _, w := range seeded() {
		assertWorkspace(t, "GetWorkspace("+w.Slug+") after Ping", w, f.workspace(w.Slug))
	}
}
