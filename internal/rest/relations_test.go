package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Relations over REST: relate by POST, a replay by Idempotency-Key, the
// ticket's links and readiness, the ready and parent filters, a refused
// cycle as 409, an agent refused in a read-only workspace, and DELETE.
func TestRelations(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend)
		for i, title := range []string{"Epic", "First", "Then"} {
			e.createTicket(e.tokens["alice"], "inbox", "t"+string(rune('1'+i)), map[string]any{"title": title})
		}
		relate := func(key, id, kind, other string) call {
			return call{method: "POST", path: "/api/v1/tickets/" + id + "/relations", token: e.tokens["claude"], key: key,
				body: map[string]any{"kind": kind, "other": other}}
		}
		e.ok(relate("p2", "inbox-1", "parent", "inbox-2"), http.StatusOK)
		e.ok(relate("p3", "inbox-1", "parent", "inbox-3"), http.StatusOK)
		first := relate("b", "inbox-2", "blocks", "inbox-3")
		got := decodeAs[board.RelationResult](t, e.ok(first, http.StatusOK))
		if !got.Changed || got.Ticket.ID != "inbox-2" || got.Other.ID != "inbox-3" || got.Kind != board.RelationBlocks {
			t.Fatalf("relate: %+v", got)
		}
		if replay := e.ok(first, http.StatusOK); replay.header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("replayed relate: %s", replay.body)
		}
		d := decodeAs[board.TicketDetail](t, e.ok(call{method: "GET", path: "/api/v1/tickets/inbox-3", token: e.tokens["bob"]}, http.StatusOK))
		if len(d.BlockedBy) != 1 || d.BlockedBy[0].ID != "inbox-2" || d.Ready || d.Parent == nil || d.Parent.ID != "inbox-1" {
			t.Errorf("get inbox-3: blocked_by %+v ready %v parent %+v", d.BlockedBy, d.Ready, d.Parent)
		}
		ready := decodeAs[board.TicketList](t, e.ok(call{method: "GET", path: "/api/v1/workspaces/inbox/tickets?ready=true&parent=inbox-1", token: e.tokens["bob"]}, http.StatusOK))
		if len(ready.Tickets) != 1 || ready.Tickets[0].ID != "inbox-2" {
			t.Errorf("ready sub-tickets: %+v", ready.Tickets)
		}
		p := e.refused(relate("cyc", "inbox-3", "blocks", "inbox-2"), http.StatusConflict, "conflict")
		if !strings.Contains(p.Detail, "cycle") {
			t.Errorf("a cycle's problem: %s", p.Detail)
		}
		e.refused(relate("bad", "inbox-3", "follows", "inbox-2"), http.StatusBadRequest, "invalid")
		e.createTicket(e.tokens["alice"], "reference", "r1", map[string]any{"title": "r1"})
		e.createTicket(e.tokens["alice"], "reference", "r2", map[string]any{"title": "r2"})
		e.refused(relate("ro", "reference-1", "blocks", "reference-2"), http.StatusForbidden, "forbidden")

		del := call{method: "DELETE", path: "/api/v1/tickets/inbox-2/relations/blocks/inbox-3", token: e.tokens["claude"], key: "un"}
		if un := decodeAs[board.RelationResult](t, e.ok(del, http.StatusOK)); !un.Changed {
			t.Errorf("delete: %+v", un)
		}
		if replay := e.ok(del, http.StatusOK); replay.header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("replayed delete: %s", replay.body)
		}
		d = decodeAs[board.TicketDetail](t, e.ok(call{method: "GET", path: "/api/v1/tickets/inbox-3", token: e.tokens["bob"]}, http.StatusOK))
		if len(d.BlockedBy) != 0 || !d.Ready {
			t.Errorf("after delete: blocked_by %+v ready %v", d.BlockedBy, d.Ready)
		}
		e.refused(call{method: "DELETE", path: "/api/v1/tickets/inbox-2/relations/blocks/inbox-3", token: e.tokens["claude"], malformed: true}, http.StatusBadRequest, "invalid")
	})
}
