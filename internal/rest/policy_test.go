package rest_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// ai_policy applies to every ai:* author whatever the credential: an
// agent's token finds a hidden workspace exactly as absent (404, the same
// problem) and is refused writes in a read-only one (403); a person's own
// token sees and writes everywhere.
func TestPolicyByToken(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend)
		alice, claude, bob, botbob := e.tokens["alice"], e.tokens["claude"], e.tokens["bob"], e.tokens["botbob"]
		e.ok(call{method: "POST", path: "/api/v1/workspaces", token: alice, key: "ws", body: map[string]any{"slug": "secret", "name": "Secret", "ai_policy": "hidden"}}, 201)
		e.createTicket(alice, "secret", "s1", map[string]any{"title": "hidden ticket"})
		e.createTicket(alice, "reference", "r1", map[string]any{"title": "reference ticket"})

		for _, tok := range []string{claude, botbob} {
			l := decodeAs[board.WorkspacesResult](t, e.ok(call{method: "GET", path: "/api/v1/workspaces", token: tok}, 200))
			var slugs []string
			for _, w := range l.Workspaces {
				slugs = append(slugs, w.Slug)
			}
			if strings.Join(slugs, ",") != "inbox,reference" {
				t.Fatalf("an agent lists %v, want inbox and reference only", slugs)
			}
		}
		// Hidden is absent: every route answers for secret exactly what it
		// answers for a workspace that does not exist.
		pairs := []struct{ method, hidden, absent string }{
			{"GET", "/api/v1/workspaces/secret", "/api/v1/workspaces/nosuch"},
			{"GET", "/api/v1/workspaces/secret/tickets", "/api/v1/workspaces/nosuch/tickets"},
			{"POST", "/api/v1/workspaces/secret/tickets", "/api/v1/workspaces/nosuch/tickets"},
			{"PATCH", "/api/v1/workspaces/secret", "/api/v1/workspaces/nosuch"},
			{"GET", "/api/v1/tickets/secret-1", "/api/v1/tickets/nosuch-1"},
			{"PATCH", "/api/v1/tickets/secret-1", "/api/v1/tickets/nosuch-1"},
			{"POST", "/api/v1/tickets/secret-1/move", "/api/v1/tickets/nosuch-1/move"},
			{"POST", "/api/v1/tickets/secret-1/notes", "/api/v1/tickets/nosuch-1/notes"},
		}
		bodies := map[string]any{"POST tickets": map[string]any{"title": "x"}, "PATCH": map[string]any{"title": "x"},
			"move": map[string]any{"status": "doing"}, "notes": map[string]any{"body": "x"}}
		bodyFor := func(method, path string) any {
			switch {
			case strings.HasSuffix(path, "/move"):
				return bodies["move"]
			case strings.HasSuffix(path, "/notes"):
				return bodies["notes"]
			case method == "PATCH" && strings.Contains(path, "/workspaces/"):
				return map[string]any{"name": "x"}
			case method == "PATCH":
				return bodies["PATCH"]
			case method == "POST":
				return bodies["POST tickets"]
			}
			return nil
		}
		for i, p := range pairs {
			var got [2]answer
			for j, path := range []string{p.hidden, p.absent} {
				c := call{method: p.method, path: path, token: claude, body: bodyFor(p.method, path)}
				if p.method != "GET" {
					c.key = "hid-" + string(rune('a'+i)) + string(rune('a'+j))
				}
				got[j] = e.do(c)
			}
			h, a := got[0].problem(t), got[1].problem(t)
			if got[0].status != got[1].status || h.Code != a.Code || h.Title != a.Title ||
				strings.NewReplacer("secret", "nosuch").Replace(h.Detail) != a.Detail {
				t.Errorf("%s %s answered %d %+v; a workspace that does not exist answers %d %+v", p.method, p.hidden, got[0].status, h, got[1].status, a)
			}
			if p.method != "PATCH" || strings.Contains(p.hidden, "tickets") {
				if got[0].status != http.StatusNotFound {
					t.Errorf("%s %s: %d, want 404", p.method, p.hidden, got[0].status)
				}
			}
		}
		// Read-only: reads work, writes are 403 with MCP's text.
		e.ok(call{method: "GET", path: "/api/v1/tickets/reference-1", token: claude}, 200)
		e.ok(call{method: "GET", path: "/api/v1/workspaces/reference/tickets", token: claude}, 200)
		for _, c := range []call{
			{method: "POST", path: "/api/v1/workspaces/reference/tickets", key: "ro-1", body: map[string]any{"title": "no"}},
			{method: "PATCH", path: "/api/v1/tickets/reference-1", key: "ro-2", body: map[string]any{"title": "no"}},
			{method: "POST", path: "/api/v1/tickets/reference-1/move", key: "ro-3", body: map[string]any{"status": "doing"}},
			{method: "POST", path: "/api/v1/tickets/reference-1/notes", key: "ro-4", body: map[string]any{"body": "no"}},
		} {
			c.token = claude
			p := e.refused(c, http.StatusForbidden, "forbidden")
			if !strings.Contains(p.Detail, "workspace 'reference' is read-only for AI") {
				t.Errorf("%s %s: %q", c.method, c.path, p.Detail)
			}
		}
		// People see and write everywhere, hidden included.
		for _, tok := range []string{alice, bob} {
			l := decodeAs[board.WorkspacesResult](t, e.ok(call{method: "GET", path: "/api/v1/workspaces", token: tok}, 200))
			if !slices.ContainsFunc(l.Workspaces, func(w board.Workspace) bool { return w.Slug == "secret" }) {
				t.Fatal("a person does not see the hidden workspace")
			}
			e.ok(call{method: "GET", path: "/api/v1/tickets/secret-1", token: tok}, 200)
		}
		e.createTicket(bob, "secret", "b-s2", map[string]any{"title": "bob writes here"})
		e.createTicket(bob, "reference", "b-r2", map[string]any{"title": "and here"})
		if n := e.ticketCount("secret"); n != 2 {
			t.Fatalf("secret holds %d tickets, want 2 (the agents' writes refused)", n)
		}
	})
}

// The same failure answers with the same text on MCP and REST: policy, not
// found, a reused request_id.
func TestSameTextAsMCP(t *testing.T) {
	e := newEnv(t, "sqlite")
	claude := e.tokens["claude"]
	e.createTicket(claude, "inbox", "same-1", map[string]any{"title": "first"})
	cs := mcpSession(t, e.url, claude, modernVersion)
	for _, c := range []struct {
		tool string
		args map[string]any
		rest call
	}{
		{"create_ticket", map[string]any{"request_id": "x-1", "workspace": "reference", "title": "no"},
			call{method: "POST", path: "/api/v1/workspaces/reference/tickets", key: "x-1", body: map[string]any{"title": "no"}}},
		{"get_ticket", map[string]any{"id": "inbox-9"}, call{method: "GET", path: "/api/v1/tickets/inbox-9"}},
		{"get_workspace_summary", map[string]any{"workspace": "private"}, call{method: "GET", path: "/api/v1/workspaces/private"}},
		{"create_ticket", map[string]any{"request_id": "same-1", "workspace": "inbox", "title": "second"},
			call{method: "POST", path: "/api/v1/workspaces/inbox/tickets", key: "same-1", body: map[string]any{"title": "second"}}},
		{"update_ticket", map[string]any{"request_id": "x-2", "id": "inbox-1", "status": "done"},
			call{method: "PATCH", path: "/api/v1/tickets/inbox-1", key: "x-2", body: map[string]any{"status": "done"}}},
		{"move_ticket", map[string]any{"request_id": "x-3", "id": "inbox-1", "status": "doing", "reason": strings.Repeat("r", 1001)},
			call{method: "POST", path: "/api/v1/tickets/inbox-1/move", key: "x-3", body: map[string]any{"status": "doing", "reason": strings.Repeat("r", 1001)}}},
		// The task routes.
		{"import_tickets", map[string]any{"request_id": "x-4", "workspace": "reference", "tickets": []map[string]any{{"title": "no"}}},
			call{method: "POST", path: "/api/v1/workspaces/reference/imports", key: "x-4", body: map[string]any{"tickets": []map[string]any{{"title": "no"}}}}},
		{"import_tickets", map[string]any{"request_id": "x-5", "workspace": "inbox", "tickets": []map[string]any{{"title": "ok"}, {"title": "a\nb"}}},
			call{method: "POST", path: "/api/v1/workspaces/inbox/imports", key: "x-5", body: map[string]any{"tickets": []map[string]any{{"title": "ok"}, {"title": "a\nb"}}}}},
		{"import_tickets", map[string]any{"request_id": "x-6", "workspace": "private", "tickets": []map[string]any{{"title": "no"}}},
			call{method: "POST", path: "/api/v1/workspaces/private/imports", key: "x-6", body: map[string]any{"tickets": []map[string]any{{"title": "no"}}}}},
		{"import_tickets", map[string]any{"request_id": "same-1", "workspace": "inbox", "tickets": []map[string]any{{"title": "first"}}},
			call{method: "POST", path: "/api/v1/workspaces/inbox/imports", key: "same-1", body: map[string]any{"tickets": []map[string]any{{"title": "first"}}}}},
		{"get_task", map[string]any{"task_id": absentTask}, call{method: "GET", path: "/api/v1/tasks/" + absentTask}},
		{"cancel_task", map[string]any{"task_id": absentTask}, call{method: "POST", path: "/api/v1/tasks/" + absentTask + "/cancel", key: "x-7"}},
	} {
		_, text := tool(t, cs, c.tool, c.args)
		c.rest.token = claude
		a := e.do(c.rest)
		if a.status < 400 || text == "" {
			t.Fatalf("%s: MCP %q, REST %d; want both to fail", c.tool, text, a.status)
		}
		if p := a.problem(t); p.Detail != text {
			t.Errorf("%s: REST says %q, MCP says %q", c.tool, p.Detail, text)
		}
	}
}
