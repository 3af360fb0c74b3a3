package mcpserver_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
)

// TestClaimLoop drives the loop the instructions teach, over MCP, on the
// embedded store and on minidyn: claim_next, a refused move by another
// agent, a note by it, the holder's move with its token, release with a
// status, a replayed claim_next, and none left.
func TestClaimLoop(t *testing.T) {
	for _, backend := range []string{"", "minidyn"} {
		t.Run("store="+backend, func(t *testing.T) {
			e := newEnv(t, envOptions{backend: backend})
			cs := connect(t, e.URL, modernVersion, nil)
			// Another agent on the same service.
			other := mcpserver.NewServer(e.Svc, mcpserver.Options{Principal: mcpserver.StaticPrincipal(board.Principal{Author: "ai:other", Source: board.SourceMCP})})
			ts := httptest.NewServer(mcpserver.Handler(other, mcpserver.HandlerOptions{}))
			t.Cleanup(ts.Close)
			rival := connect(t, ts.URL+"/mcp", modernVersion, nil)

			for _, in := range []board.CreateTicketInput{
				{RequestID: "a", Workspace: "inbox", NewTicket: board.NewTicket{Title: "Routine", Priority: board.PriorityLow}},
				{RequestID: "b", Workspace: "inbox", NewTicket: board.NewTicket{Title: "Urgent fix", Priority: board.PriorityUrgent}},
			} {
				if _, err := e.Svc.CreateTicket(human(), in); err != nil {
					t.Fatal(err)
				}
			}
			type claimed struct {
				Replayed bool           `json:"replayed"`
				Ticket   *board.Ticket  `json:"ticket"`
				Claim    map[string]any `json:"claim"`
			}
			next := map[string]any{"request_id": "n1", "workspace": "inbox"}
			got := call[claimed](t, cs, "claim_next", next)
			if got.Ticket == nil || got.Ticket.ID != "inbox-2" || got.Claim["by"] != "ai:tester" || got.Ticket.Claim == nil {
				t.Fatalf("claim_next: %+v, want the urgent inbox-2 claimed by ai:tester", got)
			}
			token, _ := got.Claim["token"].(string)
			if token == "" {
				t.Fatal("claim_next answered no token")
			}
			if again := call[claimed](t, cs, "claim_next", next); !again.Replayed || again.Ticket.ID != "inbox-2" || again.Claim["token"] != token {
				t.Errorf("claim_next replay: %+v", again)
			}
			msg := callErr(t, rival, "move_ticket", map[string]any{"request_id": "o1", "id": "inbox-2", "status": "doing"})
			if !strings.Contains(msg, "claimed by ai:tester until") || !strings.Contains(msg, "claim_next") {
				t.Errorf("another agent's move: %q", msg)
			}
			call[board.NoteResult](t, rival, "add_note", map[string]any{"request_id": "o2", "id": "inbox-2", "body": "I can review it"})
			call[board.MoveResult](t, cs, "move_ticket", map[string]any{"request_id": "m1", "id": "inbox-2", "status": "doing", "claim_token": token})
			call[board.NoteResult](t, cs, "add_note", map[string]any{"request_id": "m2", "id": "inbox-2", "body": "fixed it"})
			rel := call[board.ReleaseResult](t, cs, "release_ticket", map[string]any{"request_id": "m3", "id": "inbox-2", "status": "done", "reason": "fixed", "claim_token": token})
			if !rel.Released || rel.Ticket.Status != board.StatusDone || rel.Ticket.Claim != nil {
				t.Errorf("release: %+v", rel)
			}
			// The other agent takes what is left; then nothing is.
			if o := call[claimed](t, rival, "claim_next", map[string]any{"request_id": "o3", "workspace": "inbox"}); o.Ticket == nil || o.Ticket.ID != "inbox-1" {
				t.Errorf("the other agent's claim_next: %+v, want inbox-1", o)
			}
			if none := call[claimed](t, cs, "claim_next", map[string]any{"request_id": "n2", "workspace": "inbox"}); none.Ticket != nil || none.Claim != nil {
				t.Errorf("claim_next with nothing ready: %+v, want null ticket and claim", none)
			}
			// The ticket resources say who holds what, and what the claims did.
			if md := readText(t, cs, "ticket://inbox-1"); !strings.Contains(md, "- claimed: by ai:other until ") {
				t.Errorf("ticket://inbox-1 does not show its claim:\n%s", md)
			}
			if md := readText(t, cs, "ticket://inbox-2"); !strings.Contains(md, "released, moved doing → done") || strings.Contains(md, "- claimed:") {
				t.Errorf("ticket://inbox-2 does not show the release:\n%s", md)
			}
			list := call[board.TicketList](t, cs, "list_tickets", map[string]any{"workspace": "inbox", "claimed": true})
			if len(list.Tickets) != 1 || list.Tickets[0].ID != "inbox-1" || list.Tickets[0].Claim.By != "ai:other" {
				t.Errorf("claimed tickets: %+v", list.Tickets)
			}
		})
	}
}
