package storetest

import (
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// WorkspaceMarker and TicketMarker: what an open page polls to learn that
// it is out of date (board.ChangeReader).

func changeTests() []contractTest {
	return []contractTest{
		{"the workspace marker is its newest event, moved by every write a board shows", testWorkspaceMarkerMoves},
		{"the workspace marker decides the policy; a missing workspace is ErrNotFound", testWorkspaceMarkerRefuses},
		{"the ticket marker is its version, moved by every change to the ticket", testTicketMarkerMoves},
		{"the ticket marker decides the policy; a missing ticket is ErrNotFound", testTicketMarkerRefuses},
	}
}

func (f *fixture) workspaceMarker(slug string) string {
	f.t.Helper()
	m, err := f.s.WorkspaceMarker(f.ctx, slug, nil)
	if err != nil {
		f.t.Fatalf("WorkspaceMarker(%s): %v", slug, err)
	}
	return m
}

func (f *fixture) ticketMarker(id string) int64 {
	f.t.Helper()
	v, err := f.s.TicketMarker(f.ctx, id, nil)
	if err != nil {
		f.t.Fatalf("TicketMarker(%s): %v", id, err)
	}
	return v
}

func testWorkspaceMarkerMoves(t *testing.T, f *fixture) {
	if m := f.workspaceMarker("inbox"); m != "" {
		t.Fatalf("WorkspaceMarker of a workspace without events = %q, want \"\"", m)
	}
	seen := map[string]string{}
	// moved checks the marker after a write: the id of the event it
	// appended, and never one seen before.
	moved := func(what string, ev board.Event) {
		t.Helper()
		m := f.workspaceMarker("inbox")
		if m != ev.ID {
			t.Errorf("WorkspaceMarker after %s = %q, want its event %q", what, m, ev.ID)
		}
		if before, ok := seen[m]; ok {
			t.Errorf("WorkspaceMarker after %s = %q, the same as after %s", what, m, before)
		}
		seen[m] = what
	}
	a := f.create("inbox", "a")
	moved("a create", a.Event)
	up := f.retitle(a.Ticket, "u", "renamed")
	f.save(up)
	moved("an update", *up.Event)
	mv := f.moveTx(*up.After, "m", board.StatusDoing, "")
	f.save(mv)
	moved("a move", *mv.Event)
	note := f.noteTx(*mv.After, "n", "a note")
	f.save(note)
	moved("a note", *note.Event)
	pol := board.Event{ID: f.id("ev"), Workspace: "inbox", Type: board.EventWorkspaceUpdated, Fields: []string{"ai_policy"},
		Author: human, Source: board.SourceWeb, At: f.now()}
	if err := f.s.SetWorkspacePolicy(f.ctx, "inbox", board.PolicyReadOnly, pol); err != nil {
		t.Fatal(err)
	}
	moved("a policy change", pol)
	ws := f.workspaceTx(board.ToolUpdateWorkspace, "human:alice", "w", board.Workspace{Slug: "inbox", Name: "Incoming", AIPolicy: board.PolicyReadWrite}, true)
	if _, err := f.s.UpdateWorkspace(f.ctx, ws); err != nil {
		t.Fatal(err)
	}
	moved("a workspace update", *ws.Event)
	task := f.newTask("task-1", "import", 3, f.now())
	rows := stagedRows(3, "imported")
	f.createTask(task, rows)
	f.runTask(task, rows)
	moved("an import", f.events("inbox", 1)[0])

	// A record-only call writes no event, and another workspace's writes
	// are not this board's.
	before := f.workspaceMarker("inbox")
	f.save(f.recordOnlyTx(f.ticket("inbox-1"), "r"))
	f.create("reference", "elsewhere")
	if m := f.workspaceMarker("inbox"); m != before {
		t.Errorf("WorkspaceMarker after a record-only call and another workspace's create = %q, want %q", m, before)
	}
}

func testWorkspaceMarkerRefuses(t *testing.T, f *fixture) {
	f.create("private", "p")
	_, err := f.s.WorkspaceMarker(f.ctx, "private", []board.AIPolicy{board.PolicyReadWrite, board.PolicyReadOnly})
	assertPolicyError(t, "WorkspaceMarker of a hidden workspace for AI", err, board.PolicyHidden)
	if m := f.workspaceMarker("private"); m == "" {
		t.Error("WorkspaceMarker of a hidden workspace for a person is empty, want its event")
	}
	_, err = f.s.WorkspaceMarker(f.ctx, "nowhere", nil)
	assertIs(t, "WorkspaceMarker(nowhere)", err, board.ErrNotFound)
}

func testTicketMarkerMoves(t *testing.T, f *fixture) {
	a := f.create("inbox", "a")
	other := f.create("inbox", "b")
	want := func(what string, v int64) {
		t.Helper()
		if got := f.ticketMarker(a.Ticket.ID); got != v {
			t.Errorf("TicketMarker after %s = %d, want %d", what, got, v)
		}
	}
	want("the create", a.Ticket.Version)
	up := f.retitle(a.Ticket, "u", "renamed")
	f.save(up)
	want("an update", up.After.Version)
	note := f.noteTx(*up.After, "n", "a note")
	f.save(note)
	want("a note", note.After.Version)
	mv := f.moveTx(*note.After, "m", board.StatusDone, "")
	f.save(mv)
	want("a move", mv.After.Version)
	f.save(f.retitle(other.Ticket, "o", "the other one"))
	want("another ticket's update", mv.After.Version)
	if mv.After.Version <= a.Ticket.Version {
		t.Fatalf("the fixture's writes did not move the version: %d -> %d", a.Ticket.Version, mv.After.Version)
	}
}

func testTicketMarkerRefuses(t *testing.T, f *fixture) {
	p := f.create("private", "p")
	_, err := f.s.TicketMarker(f.ctx, p.Ticket.ID, []board.AIPolicy{board.PolicyReadWrite, board.PolicyReadOnly})
	assertPolicyError(t, "TicketMarker of a hidden ticket for AI", err, board.PolicyHidden)
	if v := f.ticketMarker(p.Ticket.ID); v != p.Ticket.Version {
		t.Errorf("TicketMarker of a hidden ticket for a person = %d, want %d", v, p.Ticket.Version)
	}
	for _, id := range []string{"inbox-99", "nowhere-1"} {
		_, err = f.s.TicketMarker(f.ctx, id, nil)
		assertIs(t, "TicketMarker("+id+")", err, board.ErrNotFound)
	}
}
