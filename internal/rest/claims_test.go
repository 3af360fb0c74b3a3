package rest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Claims over REST on every store: claim next, the refusal another agent
// gets, the holder's move with its token, a replay by Idempotency-Key, the
// claimed filter, a person breaking a claim, and release with a status.
func TestClaims(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend)
		e.createTicket(e.tokens["alice"], "inbox", "t1", map[string]any{"title": "Routine"})
		e.createTicket(e.tokens["alice"], "inbox", "t2", map[string]any{"title": "Urgent", "priority": "urgent"})

		next := call{method: "POST", path: "/api/v1/workspaces/inbox/claims", token: e.tokens["claude"], key: "next-1", body: map[string]any{"lease_seconds": 600}}
		a := e.ok(next, http.StatusOK)
		got := decodeAs[board.ClaimResult](t, a)
		if got.Ticket == nil || got.Ticket.ID != "inbox-2" || got.Claim == nil || got.Claim.By != "ai:claude" || got.Claim.For != "human:alice" || got.Claim.Token == "" {
			t.Fatalf("claim next: %s", a.body)
		}
		if !got.Claim.Until.Equal(got.Claim.Since.Add(600 * time.Second)) {
			t.Errorf("lease: since %s until %s, want 600 s", got.Claim.Since, got.Claim.Until)
		}
		replay := e.ok(next, http.StatusOK)
		if replay.header.Get("Idempotent-Replayed") != "true" || decodeAs[board.ClaimResult](t, replay).Claim.Token != got.Claim.Token {
			t.Errorf("replay of claim next: %s", replay.body)
		}

		p := e.refused(call{method: "POST", path: "/api/v1/tickets/inbox-2/move", token: e.tokens["botbob"], key: "steal", body: map[string]any{"status": "doing"}},
			http.StatusConflict, "conflict")
		if !strings.Contains(p.Detail, "claimed by ai:claude for human:alice until") {
			t.Errorf("another agent's move: %s", p.Detail)
		}
		p = e.refused(call{method: "POST", path: "/api/v1/tickets/inbox-2/claim", token: e.tokens["botbob"], key: "grab", body: map[string]any{}},
			http.StatusConflict, "conflict")
		if !strings.Contains(p.Detail, "claim_next") {
			t.Errorf("another agent's claim: %s", p.Detail)
		}
		e.ok(call{method: "POST", path: "/api/v1/tickets/inbox-2/move", token: e.tokens["claude"], key: "mine",
			body: map[string]any{"status": "doing", "claim_token": got.Claim.Token}}, http.StatusOK)

		claimed := decodeAs[board.TicketList](t, e.ok(call{method: "GET", path: "/api/v1/workspaces/inbox/tickets?claimed=true", token: e.tokens["bob"]}, http.StatusOK))
		if len(claimed.Tickets) != 1 || claimed.Tickets[0].ID != "inbox-2" || claimed.Tickets[0].Claim == nil {
			t.Errorf("claimed=true: %+v", claimed.Tickets)
		}
		free := decodeAs[board.TicketList](t, e.ok(call{method: "GET", path: "/api/v1/workspaces/inbox/tickets?claimed=false", token: e.tokens["bob"]}, http.StatusOK))
		if len(free.Tickets) != 1 || free.Tickets[0].ID != "inbox-1" || free.Tickets[0].Claim != nil {
			t.Errorf("claimed=false: %+v", free.Tickets)
		}
		e.refused(call{method: "GET", path: "/api/v1/workspaces/inbox/tickets?claimed=yes", token: e.tokens["bob"], malformed: true}, http.StatusBadRequest, "invalid")

		// botbob claims inbox-1 directly; bob (a person) breaks it and moves it.
		bb := decodeAs[board.ClaimResult](t, e.ok(call{method: "POST", path: "/api/v1/tickets/inbox-1/claim", token: e.tokens["botbob"], key: "c1", body: map[string]any{}}, http.StatusOK))
		if bb.Claim == nil || bb.Claim.By != "ai:claude" || bb.Claim.For != "human:bob" {
			t.Fatalf("botbob's claim: %+v", bb.Claim)
		}
		rel := decodeAs[board.ReleaseResult](t, e.ok(call{method: "POST", path: "/api/v1/tickets/inbox-1/release", token: e.tokens["bob"], key: "break",
			body: map[string]any{"status": "hold", "reason": "not now"}}, http.StatusOK))
		if !rel.Released || rel.Ticket.Status != board.StatusHold || rel.Ticket.Claim != nil {
			t.Errorf("a person's release: %+v", rel)
		}

		a = e.ok(call{method: "POST", path: "/api/v1/tickets/inbox-2/release", token: e.tokens["claude"], key: "done",
			body: map[string]any{"status": "done", "claim_token": got.Claim.Token}}, http.StatusOK)
		done := decodeAs[board.ReleaseResult](t, a)
		if done.Ticket.Status != board.StatusDone || done.Ticket.Claim != nil || a.header.Get("ETag") == "" {
			t.Errorf("release to done: %s (ETag %q)", a.body, a.header.Get("ETag"))
		}
		if strings.Contains(string(e.ok(call{method: "GET", path: "/api/v1/tickets/inbox-2", token: e.tokens["claude"]}, http.StatusOK).body), got.Claim.Token) {
			t.Error("get ticket shows the claim token")
		}
		none := decodeAs[board.ClaimResult](t, e.ok(call{method: "POST", path: "/api/v1/workspaces/inbox/claims", token: e.tokens["claude"], key: "next-2", body: map[string]any{}}, http.StatusOK))
		if none.Ticket != nil || none.Claim != nil {
			t.Errorf("claim next with nothing ready: %+v", none)
		}
		e.refused(call{method: "POST", path: "/api/v1/workspaces/reference/claims", token: e.tokens["claude"], key: "ro", body: map[string]any{}}, http.StatusForbidden, "forbidden")
	})
}
