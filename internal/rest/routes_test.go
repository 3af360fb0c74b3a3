package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Every route answers its success, as a person's own token.
func TestRoutesSucceed(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend)
		alice := e.tokens["alice"]

		ws := decodeAs[board.WorkspacesResult](t, e.ok(call{method: "GET", path: "/api/v1/workspaces", token: alice}, 200))
		if len(ws.Workspaces) != 3 {
			t.Fatalf("a person lists %d workspaces, want the 3 seeded ones (hidden included)", len(ws.Workspaces))
		}
		created := e.ok(call{method: "POST", path: "/api/v1/workspaces", token: alice, key: "ws-1",
			body: map[string]any{"slug": "ops", "name": "Ops", "ai_policy": "read_only"}}, 201)
		if created.header.Get("Location") != "/api/v1/workspaces/ops" {
			t.Errorf("Location %q", created.header.Get("Location"))
		}
		patched := decodeAs[board.WorkspaceResult](t, e.ok(call{method: "PATCH", path: "/api/v1/workspaces/ops", token: alice, key: "ws-2",
			body: map[string]any{"name": "Operations", "ai_policy": "read_write"}}, 200))
		if patched.Workspace.Name != "Operations" || patched.Workspace.AIPolicy != board.PolicyReadWrite {
			t.Fatalf("PATCH workspace = %+v", patched)
		}
		sum := decodeAs[board.WorkspaceSummary](t, e.ok(call{method: "GET", path: "/api/v1/workspaces/ops", token: alice}, 200))
		if sum.Workspace.Name != "Operations" {
			t.Fatalf("summary = %+v", sum)
		}

		tk := e.createTicket(alice, "ops", "t-1", map[string]any{"title": "First", "body": "**bold**", "priority": "high",
			"owner": "human:alice", "due": "2027-01-31", "tags": []string{"a", "b"}, "links": []map[string]any{{"kind": "url", "ref": "https://example.com/x"}}})
		if tk.ID != "ops-1" || tk.CreatedBy != "human:alice" || tk.Priority != board.PriorityHigh {
			t.Fatalf("created %+v", tk)
		}
		got := e.ok(call{method: "GET", path: "/api/v1/tickets/ops-1", token: alice}, 200)
		if got.header.Get("ETag") != `"1"` {
			t.Errorf("ETag %q, want \"1\"", got.header.Get("ETag"))
		}
		upd := e.ok(call{method: "PATCH", path: "/api/v1/tickets/ops-1", token: alice, key: "t-2", header: map[string]string{"If-Match": `"1"`},
			body: map[string]any{"title": "First, changed", "owner": nil, "tags": nil}}, 200)
		ut := decodeAs[board.TicketResult](t, upd).Ticket
		if ut.Title != "First, changed" || ut.Owner != nil || len(ut.Tags) != 0 || upd.header.Get("ETag") != `"2"` {
			t.Fatalf("PATCH = %+v (ETag %s)", ut, upd.header.Get("ETag"))
		}
		mv := decodeAs[board.MoveResult](t, e.ok(call{method: "POST", path: "/api/v1/tickets/ops-1/move", token: alice, key: "t-3",
			body: map[string]any{"status": "done", "reason": "shipped"}}, 200))
		if mv.From != board.StatusCandidate || mv.To != board.StatusDone || mv.Ticket.CompletedAt == nil {
			t.Fatalf("move = %+v", mv)
		}
		note := decodeAs[board.NoteResult](t, e.ok(call{method: "POST", path: "/api/v1/tickets/ops-1/notes", token: alice, key: "t-4",
			body: map[string]any{"body": "a note"}}, 201))
		if note.Note.Author != "human:alice" || note.Note.Source != board.SourceREST {
			t.Fatalf("note = %+v", note)
		}
		detail := decodeAs[board.TicketDetail](t, e.ok(call{method: "GET", path: "/api/v1/tickets/ops-1", token: alice}, 200))
		if len(detail.Notes) != 1 || len(detail.History) != 4 || detail.History[0].Source != board.SourceREST {
			t.Fatalf("detail: %d notes, %d events %+v", len(detail.Notes), len(detail.History), detail.History)
		}

		// Listing pages with limit and cursor, and says so in Link.
		for i := 2; i <= 5; i++ {
			e.createTicket(alice, "ops", fmt.Sprintf("t-list-%d", i), map[string]any{"title": fmt.Sprintf("T%d", i), "tags": []string{"x"}})
		}
		var seen []string
		path := "/api/v1/workspaces/ops/tickets?limit=2&tag=x"
		for page := 0; path != ""; page++ {
			a := e.ok(call{method: "GET", path: path, token: alice}, 200)
			l := decodeAs[board.TicketList](t, a)
			for _, tk := range l.Tickets {
				seen = append(seen, tk.ID)
			}
			path = ""
			if l.NextCursor != nil {
				link := a.header.Get("Link")
				if !strings.Contains(link, `rel="next"`) || !strings.HasPrefix(link, "</api/v1/workspaces/ops/tickets?") {
					t.Fatalf("page %d: Link %q", page, link)
				}
				path = link[1:strings.Index(link, ">")]
			} else if a.header.Get("Link") != "" {
				t.Fatalf("the last page has a Link %q", a.header.Get("Link"))
			}
		}
		if strings.Join(seen, ",") != "ops-5,ops-4,ops-3,ops-2" {
			t.Fatalf("pages listed %v", seen)
		}

		look := decodeAs[board.RequestLookup](t, e.ok(call{method: "GET", path: "/api/v1/requests/t-1", token: alice}, 200))
		if look.Status != "done" || look.Tool != board.ToolCreateTicket {
			t.Fatalf("GET /requests/t-1 = %+v", look)
		}
		if l := decodeAs[board.RequestLookup](t, e.ok(call{method: "GET", path: "/api/v1/requests/never", token: alice}, 200)); l.Status != "unknown" {
			t.Fatalf("an unknown key: %+v", l)
		}
		if e.oapi.requests.Load() == 0 || e.oapi.responses.Load() == 0 {
			t.Fatal("nothing was validated against the document")
		}
		t.Logf("validated %d requests and %d answers against the OpenAPI document", e.oapi.requests.Load(), e.oapi.responses.Load())
	})
}

// The problem of an unknown route and of a wrong method.
func TestUnknownRouteAndMethod(t *testing.T) {
	e := newEnv(t, "sqlite")
	e.refused(call{method: "GET", path: "/api/v1/nowhere", token: e.tokens["alice"]}, http.StatusNotFound, "not_found")
	a := e.do(call{method: "DELETE", path: "/api/v1/tickets/inbox-1", token: e.tokens["alice"]})
	if a.status != http.StatusMethodNotAllowed || a.header.Get("Allow") != "GET, PATCH" {
		t.Fatalf("DELETE: %d Allow %q", a.status, a.header.Get("Allow"))
	}
}
