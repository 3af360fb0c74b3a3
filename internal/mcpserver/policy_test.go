package mcpserver_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// seedPolicyTickets has a person create reference-1 (read_only for AI) and
// private-1 (hidden from AI).
func seedPolicyTickets(t *testing.T, e *env) {
	t.Helper()
	for _, ws := range []string{"reference", "private"} {
		if _, err := e.Svc.CreateTicket(human(), board.CreateTicketInput{RequestID: "seed-" + ws, Workspace: ws, NewTicket: board.NewTicket{Title: "Kept by people", Tags: []string{"secret"}}}); err != nil {
			t.Fatal(err)
		}
	}
}

// Every tool against every policy: hidden workspaces and their tickets do
// not exist for AI, read_only ones can be read but not written.
func TestPolicyForEveryTool(t *testing.T) {
	onEachStore(t, envOptions{}, func(t *testing.T, e *env) {
		seedPolicyTickets(t, e)
		cs := connect(t, e.URL, modernVersion, nil)
		notFoundWS := "workspace 'private' not found"
		notFoundTicket := "ticket 'private-1' not found"
		readOnly := "workspace 'reference' is read-only for AI"

		hidden := []struct {
			tool string
			args map[string]any
			want string
		}{
			{"get_workspace_summary", map[string]any{"workspace": "private"}, notFoundWS},
			{"list_tickets", map[string]any{"workspace": "private"}, notFoundWS},
			{"get_ticket", map[string]any{"id": "private-1"}, notFoundTicket},
			{"create_ticket", map[string]any{"request_id": "h1", "workspace": "private", "title": "x"}, notFoundWS},
			{"update_ticket", map[string]any{"request_id": "h2", "id": "private-1", "title": "x"}, notFoundTicket},
			{"move_ticket", map[string]any{"request_id": "h3", "id": "private-1", "status": "done"}, notFoundTicket},
			{"add_note", map[string]any{"request_id": "h4", "id": "private-1", "body": "x"}, notFoundTicket},
			{"create_ticket", map[string]any{"request_id": "r1", "workspace": "reference", "title": "x"}, readOnly},
			{"update_ticket", map[string]any{"request_id": "r2", "id": "reference-1", "title": "x"}, readOnly},
			{"move_ticket", map[string]any{"request_id": "r3", "id": "reference-1", "status": "done"}, readOnly},
			{"add_note", map[string]any{"request_id": "r4", "id": "reference-1", "body": "x"}, readOnly},
		}
		for _, c := range hidden {
			msg := callErr(t, cs, c.tool, c.args)
			if !strings.Contains(msg, c.want) {
				t.Errorf("%s(%v) = %q, want %q", c.tool, c.args, msg, c.want)
			}
			if strings.Contains(msg, "hidden") || strings.Contains(msg, "Kept by people") {
				t.Errorf("%s leaks the hidden workspace: %q", c.tool, msg)
			}
		}

		// A hidden workspace is never listed, and an unknown one reads the same.
		ws := call[board.WorkspacesResult](t, cs, "list_workspaces", map[string]any{})
		for _, w := range ws.Workspaces {
			if w.Slug == "private" {
				t.Fatalf("private listed: %+v", ws)
			}
		}
		if got := callErr(t, cs, "list_tickets", map[string]any{"workspace": "nosuch"}); !strings.Contains(got, "workspace 'nosuch' not found") {
			t.Errorf("unknown workspace: %q", got)
		}

		// read_only: reads work.
		ref := call[board.TicketDetail](t, cs, "get_ticket", map[string]any{"id": "reference-1"})
		if ref.Ticket.Title != "Kept by people" {
			t.Fatalf("reference-1 = %+v", ref.Ticket)
		}
		if l := call[board.TicketList](t, cs, "list_tickets", map[string]any{"workspace": "reference"}); len(l.Tickets) != 1 {
			t.Fatalf("reference list = %+v", l)
		}
		call[board.WorkspaceSummary](t, cs, "get_workspace_summary", map[string]any{"workspace": "reference"})

		// Nothing was written by any refused call: one ticket each, one event each.
		for _, slug := range []string{"reference", "private"} {
			d, err := e.Store.ReadTicket(t.Context(), board.TicketRead{ID: slug + "-1", Notes: 10, Events: 10})
			if err != nil || d.Ticket.Version != 1 || len(d.Notes) != 0 || len(d.History) != 1 || d.Ticket.Status != board.StatusCandidate {
				t.Errorf("%s-1 changed by refused calls: %+v %v", slug, d, err)
			}
			if n := countTickets(t, e.Store, slug); n != 1 {
				t.Errorf("%s holds %d tickets, want 1", slug, n)
			}
		}
		// Refused calls leave no request record: the id stays free.
		if found := call[board.RequestLookup](t, cs, "find_request", map[string]any{"request_id": "r1"}); found.Status != "unknown" {
			t.Errorf("refused call left a record: %+v", found)
		}
	})
}

// People see hidden workspaces; only people may change ai_policy.
func TestPolicyChangesArePeoplesAndApplyAtOnce(t *testing.T) {
	onEachStore(t, envOptions{}, func(t *testing.T, e *env) {
		cs := connect(t, e.URL, legacyVersion, nil)
		ai := board.WithPrincipal(t.Context(), agent)
		if _, err := e.Svc.SetWorkspacePolicy(ai, board.SetWorkspacePolicyInput{Workspace: "private", AIPolicy: board.PolicyReadWrite}); board.ErrorCode(err) != board.CodeForbidden {
			t.Fatalf("AI widened its own access: %v", err)
		}
		if _, err := e.Svc.SetWorkspacePolicy(human(), board.SetWorkspacePolicyInput{Workspace: "inbox", AIPolicy: board.PolicyReadOnly}); err != nil {
			t.Fatal(err)
		}
		msg := callErr(t, cs, "create_ticket", map[string]any{"request_id": "after-change", "workspace": "inbox", "title": "x"})
		if !strings.Contains(msg, "read-only for AI") {
			t.Fatalf("write after policy change: %q", msg)
		}
		all, err := e.Svc.ListWorkspaces(human())
		if err != nil || len(all.Workspaces) != 3 {
			t.Fatalf("people see %+v, %v; want all three", all, err)
		}
	})
}

// The author is the principal's: an author argument is refused, and
// created_by is always the configured author.
func TestAuthorComesFromThePrincipalOnly(t *testing.T) {
	onEachStore(t, envOptions{}, func(t *testing.T, e *env) {
		cs := connect(t, e.URL, modernVersion, nil)
		for _, field := range []string{"author", "created_by"} {
			msg := callErr(t, cs, "create_ticket", map[string]any{"request_id": "a-" + field, "workspace": "inbox", "title": "x", field: "human"})
			if !strings.Contains(msg, field) || !strings.Contains(msg, "decided by the server") {
				t.Errorf("%s argument: %q", field, msg)
			}
		}
		msg := callErr(t, cs, "add_note", map[string]any{"request_id": "a-note", "id": "inbox-1", "body": "x", "author": "human"})
		if !strings.Contains(msg, "author") {
			t.Errorf("note author argument: %q", msg)
		}
		if n := countTickets(t, e.Store, "inbox"); n != 0 {
			t.Fatalf("%d tickets written by refused calls", n)
		}
		made := call[board.TicketResult](t, cs, "create_ticket", map[string]any{"request_id": "a-ok", "workspace": "inbox", "title": "x", "owner": "human"})
		if made.Ticket.CreatedBy != "ai:tester" {
			t.Fatalf("created_by = %q, want ai:tester", made.Ticket.CreatedBy)
		}
	})
}

// Without LEDGER_AUTHOR reads work and writes are refused with a message
// saying how to set it.
func TestNoAuthorRefusesWritesOnly(t *testing.T) {
	onEachStore(t, envOptions{principal: board.Principal{Source: board.SourceMCP, NoAuthorReason: "set LEDGER_AUTHOR=ai:<name>"}}, func(t *testing.T, e *env) {
		cs := connect(t, e.URL, legacyVersion, nil)
		call[board.WorkspacesResult](t, cs, "list_workspaces", map[string]any{})
		call[board.TicketList](t, cs, "list_tickets", map[string]any{"workspace": "inbox"})
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"create_ticket", map[string]any{"request_id": "n1", "workspace": "inbox", "title": "x"}},
			{"update_ticket", map[string]any{"request_id": "n2", "id": "inbox-1", "title": "x"}},
			{"move_ticket", map[string]any{"request_id": "n3", "id": "inbox-1", "status": "done"}},
			{"add_note", map[string]any{"request_id": "n4", "id": "inbox-1", "body": "x"}},
		} {
			msg := callErr(t, cs, c.tool, c.args)
			if !strings.Contains(msg, "LEDGER_AUTHOR=ai:<name>") || !strings.Contains(msg, "Reads still work") {
				t.Errorf("%s: %q", c.tool, msg)
			}
		}
		if n := countTickets(t, e.Store, "inbox"); n != 0 {
			t.Fatalf("%d tickets written without an author", n)
		}
	})
}

// Hidden after the fact: once a person hides a workspace an AI wrote in,
// the AI's stored results in it answer as if the workspace did not exist.
// find_request says unknown, a retry gets "not found" instead of the
// stored ticket or note, and a reused request_id with guessed values names
// no field. Made visible again, the records answer as before: nothing was
// lost, and nothing was written by the refused calls.
func TestHiddenAfterTheFact(t *testing.T) {
	onEachStore(t, envOptions{}, func(t *testing.T, e *env) {
		cs := connect(t, e.URL, modernVersion, nil)
		create := map[string]any{"request_id": "c1", "workspace": "inbox", "title": "Secret plan", "body": "the details", "due": "2026-12-24"}
		made := call[board.TicketResult](t, cs, "create_ticket", create)
		note := map[string]any{"request_id": "n1", "id": made.Ticket.ID, "body": "secret note"}
		call[board.NoteResult](t, cs, "add_note", note)
		update := map[string]any{"request_id": "u1", "id": made.Ticket.ID, "priority": "urgent"}
		call[board.TicketResult](t, cs, "update_ticket", update)
		setPolicy := func(p board.AIPolicy) {
			t.Helper()
			if _, err := e.Svc.SetWorkspacePolicy(human(), board.SetWorkspacePolicyInput{Workspace: "inbox", AIPolicy: p}); err != nil {
				t.Fatal(err)
			}
		}
		setPolicy(board.PolicyHidden)
		before := e.Witness(t)

		for _, rid := range []string{"c1", "n1", "u1"} {
			found := call[board.RequestLookup](t, cs, "find_request", map[string]any{"request_id": rid})
			if found.Status != "unknown" || found.Result != nil || found.Tool != "" {
				t.Errorf("find_request %s in a hidden workspace = %+v, want unknown and nothing else", rid, found)
			}
		}
		with := func(args map[string]any, k string, v any) map[string]any {
			out := map[string]any{}
			for key, val := range args {
				out[key] = val
			}
			out[k] = v
			return out
		}
		notFoundWS, notFoundTicket := "workspace 'inbox' not found", "ticket '"+made.Ticket.ID+"' not found"
		for _, c := range []struct {
			name, tool string
			args       map[string]any
			want       string
		}{
			{"retry of the create", "create_ticket", create, notFoundWS},
			{"the create's id with a guessed body", "create_ticket", with(create, "body", "guessed"), notFoundWS},
			{"the create's id with a guessed due date", "create_ticket", with(create, "due", "2026-12-25"), notFoundWS},
			{"retry of the note", "add_note", note, notFoundTicket},
			{"the note's id with a guessed body", "add_note", with(note, "body", "guess"), notFoundTicket},
			{"retry of the update", "update_ticket", update, notFoundTicket},
			{"the update's id with a guessed value", "update_ticket", with(update, "priority", "low"), notFoundTicket},
			{"the create's id elsewhere", "create_ticket", with(create, "workspace", "reference"), "cannot be used for this call"},
		} {
			msg := callErr(t, cs, c.tool, c.args)
			if !strings.Contains(msg, c.want) {
				t.Errorf("%s: %q, want %q", c.name, msg, c.want)
			}
			for _, leak := range []string{"Secret", "secret", "details", "differing", "body", "due", "priority", "already used", "hidden"} {
				if strings.Contains(msg, leak) {
					t.Errorf("%s: %q gives away %q", c.name, msg, leak)
				}
			}
		}
		if after := e.Witness(t); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Fatalf("refused calls wrote: before %v, after %v", before, after)
		}

		setPolicy(board.PolicyReadWrite)
		if found := call[board.RequestLookup](t, cs, "find_request", map[string]any{"request_id": "c1"}); found.Status != "done" {
			t.Errorf("find_request c1 once visible again = %+v, want done", found)
		}
		if again := call[board.TicketResult](t, cs, "create_ticket", create); !again.Replayed || again.Ticket.ID != made.Ticket.ID {
			t.Errorf("retry once visible again = %+v, want the replay of %s", again, made.Ticket.ID)
		}
	})
}
