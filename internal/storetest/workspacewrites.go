package storetest

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// CreateWorkspace and UpdateWorkspace: ledger writes like ticket writes.

func workspaceWriteTests() []contractTest {
	return []contractTest{
		{"CreateWorkspace stores the workspace, its event and the record", testCreateWorkspace},
		{"CreateWorkspace of a taken slug is ErrExists and writes nothing", testCreateWorkspaceTaken},
		{"CreateWorkspace with a used request_id is ExistsError and writes nothing", testCreateWorkspaceReplay},
		{"a created workspace takes tickets numbered from 1", testCreatedWorkspaceTakesTickets},
		{"UpdateWorkspace changes name and policy with an event", testUpdateWorkspace},
		{"UpdateWorkspace without an event writes only the record", testUpdateWorkspaceRecordOnly},
		{"UpdateWorkspace of an unknown slug is ErrNotFound and writes nothing", testUpdateWorkspaceUnknown},
		{"concurrent CreateWorkspace with one request_id: one workspace", testRaceCreateWorkspace},
	}
}

func (f *fixture) workspaceTx(tool, principal, requestID string, w board.Workspace, withEvent bool) board.WorkspaceTx {
	now := f.now()
	rec := record(principal, requestID, tool, tool+" "+w.Slug+" "+w.Name+" "+string(w.AIPolicy), now)
	rec.Result = fmt.Appendf(nil, `{"request_id":%q,"workspace":{"slug":%q}}`, requestID, w.Slug)
	tx := board.WorkspaceTx{Request: rec, Workspace: w}
	if withEvent {
		typ := board.EventWorkspaceUpdated
		if tool == board.ToolCreateWorkspace {
			typ = board.EventWorkspaceCreated
		}
		tx.Event = &board.Event{ID: f.id("ev"), Workspace: w.Slug, Type: typ, Fields: []string{"name", "ai_policy"},
			Author: "human:alice", Source: board.SourceWeb, RequestID: requestID, At: now}
	}
	return tx
}

func testCreateWorkspace(t *testing.T, f *fixture) {
	w := board.Workspace{Slug: "ops", Name: "Operations", AIPolicy: board.PolicyReadOnly}
	tx := f.workspaceTx(board.ToolCreateWorkspace, "human:alice", "w1", w, true)
	got, err := f.s.CreateWorkspace(f.ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	assertRecord(t, "CreateWorkspace's record", tx.Request, got)
	assertRecord(t, "GetRequest after CreateWorkspace", tx.Request, f.request(tx.Request.Key, tx.Request.CreatedAt))
	assertWorkspace(t, "GetWorkspace(ops)", w, f.workspace("ops"))
	assertCounts(t, "GetWorkspace(ops)", noCounts, f.workspace("ops").Counts)
	all := f.workspaces()
	if len(all) != 4 || all[1].Slug != "ops" {
		t.Fatalf("ListWorkspaces = %v, want inbox, ops, private, reference", all)
	}
	assertEvents(t, "ListEvents(ops)", []board.Event{*tx.Event}, f.events("ops", 10))
}

func testCreateWorkspaceTaken(t *testing.T, f *fixture) {
	tx := f.workspaceTx(board.ToolCreateWorkspace, "human:alice", "w1", board.Workspace{Slug: "inbox", Name: "Other", AIPolicy: board.PolicyHidden}, true)
	_, err := f.s.CreateWorkspace(f.ctx, tx)
	assertIs(t, "CreateWorkspace(inbox)", err, board.ErrExists)
	assertWorkspace(t, "GetWorkspace(inbox) after the refused create", seeded()[0], f.workspace("inbox"))
	f.noRequest("the refused create's record", tx.Request.Key, tx.Request.CreatedAt)
	assertEvents(t, "ListEvents(inbox)", nil, f.events("inbox", 10))
}

func testCreateWorkspaceReplay(t *testing.T, f *fixture) {
	first := f.workspaceTx(board.ToolCreateWorkspace, "human:alice", "w1", board.Workspace{Slug: "ops", Name: "Ops", AIPolicy: board.PolicyReadWrite}, true)
	if _, err := f.s.CreateWorkspace(f.ctx, first); err != nil {
		t.Fatal(err)
	}
	again := f.workspaceTx(board.ToolCreateWorkspace, "human:alice", "w1", board.Workspace{Slug: "dev", Name: "Dev", AIPolicy: board.PolicyReadWrite}, true)
	_, err := f.s.CreateWorkspace(f.ctx, again)
	assertExists(t, "CreateWorkspace with w1 again", err, first.Request)
	_, err = f.s.GetWorkspace(f.ctx, "dev")
	assertIs(t, "GetWorkspace(dev) after the refused create", err, board.ErrNotFound)
	// Another principal's request_id is another key.
	other := f.workspaceTx(board.ToolCreateWorkspace, "human:bob", "w1", board.Workspace{Slug: "dev", Name: "Dev", AIPolicy: board.PolicyReadWrite}, true)
	if _, err := f.s.CreateWorkspace(f.ctx, other); err != nil {
		t.Fatalf("bob's w1: %v", err)
	}
}

func testCreatedWorkspaceTakesTickets(t *testing.T, f *fixture) {
	tx := f.workspaceTx(board.ToolCreateWorkspace, "human:alice", "w1", board.Workspace{Slug: "ops", Name: "Ops", AIPolicy: board.PolicyReadWrite}, true)
	if _, err := f.s.CreateWorkspace(f.ctx, tx); err != nil {
		t.Fatal(err)
	}
	one := f.create("ops", "t1")
	two := f.create("ops", "t2")
	if one.Ticket.ID != "ops-1" || two.Ticket.ID != "ops-2" {
		t.Fatalf("tickets in a new workspace are %s, %s; want ops-1, ops-2", one.Ticket.ID, two.Ticket.ID)
	}
	f.counts("ops", map[board.Status]int{board.StatusCandidate: 2})
}

func testUpdateWorkspace(t *testing.T, f *fixture) {
	f.create("inbox", "t1")
	w := board.Workspace{Slug: "inbox", Name: "Incoming", AIPolicy: board.PolicyHidden}
	tx := f.workspaceTx(board.ToolUpdateWorkspace, "human:alice", "u1", w, true)
	got, err := f.s.UpdateWorkspace(f.ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	assertRecord(t, "UpdateWorkspace's record", tx.Request, got)
	assertWorkspace(t, "GetWorkspace(inbox)", w, f.workspace("inbox"))
	f.counts("inbox", map[board.Status]int{board.StatusCandidate: 1})
	if _, p := f.detail("inbox-1"); p != board.PolicyHidden {
		t.Errorf("GetTicketDetail policy after UpdateWorkspace = %q, want hidden", p)
	}
	evs := f.events("inbox", 10)
	if len(evs) != 2 {
		t.Fatalf("ListEvents(inbox) = %v, want the update and the create", eventTypes(evs))
	}
	assertEvents(t, "ListEvents(inbox)[0]", []board.Event{*tx.Event}, evs[:1])
	again := f.workspaceTx(board.ToolUpdateWorkspace, "human:alice", "u1", board.Workspace{Slug: "inbox", Name: "X", AIPolicy: board.PolicyReadWrite}, true)
	_, err = f.s.UpdateWorkspace(f.ctx, again)
	assertExists(t, "UpdateWorkspace with u1 again", err, tx.Request)
	assertWorkspace(t, "GetWorkspace(inbox) after the refused update", w, f.workspace("inbox"))
}

func testUpdateWorkspaceRecordOnly(t *testing.T, f *fixture) {
	tx := f.workspaceTx(board.ToolUpdateWorkspace, "human:alice", "u1", seeded()[0], false)
	if _, err := f.s.UpdateWorkspace(f.ctx, tx); err != nil {
		t.Fatal(err)
	}
	assertRecord(t, "GetRequest", tx.Request, f.request(tx.Request.Key, tx.Request.CreatedAt))
	assertEvents(t, "ListEvents(inbox)", nil, f.events("inbox", 10))
	assertWorkspace(t, "GetWorkspace(inbox)", seeded()[0], f.workspace("inbox"))
}

func testUpdateWorkspaceUnknown(t *testing.T, f *fixture) {
	tx := f.workspaceTx(board.ToolUpdateWorkspace, "human:alice", "u1", board.Workspace{Slug: "nope", Name: "Nope", AIPolicy: board.PolicyReadWrite}, true)
	_, err := f.s.UpdateWorkspace(f.ctx, tx)
	assertIs(t, "UpdateWorkspace(nope)", err, board.ErrNotFound)
	f.noRequest("the refused update's record", tx.Request.Key, tx.Request.CreatedAt)
	_, err = f.s.GetWorkspace(f.ctx, "nope")
	assertIs(t, "GetWorkspace(nope)", err, board.ErrNotFound)
}

func testRaceCreateWorkspace(t *testing.T, f *fixture) {
	tx := f.workspaceTx(board.ToolCreateWorkspace, "human:alice", "w1", board.Workspace{Slug: "ops", Name: "Ops", AIPolicy: board.PolicyReadWrite}, true)
	const n = 8
	var won, replays atomic.Int32
	Together(n, func(i int) {
		_, err := f.s.CreateWorkspace(f.ctx, tx)
		var exists *ledger.ExistsError
		switch {
		case err == nil:
			won.Add(1)
		case errors.As(err, &exists):
			replays.Add(1)
		default:
			t.Errorf("CreateWorkspace %d: %v", i, err)
		}
	})
	if won.Load() != 1 || replays.Load() != n-1 {
		t.Fatalf("%d creates won, %d found the record; want 1 and %d", won.Load(), replays.Load(), n-1)
	}
	assertEvents(t, "ListEvents(ops)", []board.Event{*tx.Event}, f.events("ops", 10))
}
