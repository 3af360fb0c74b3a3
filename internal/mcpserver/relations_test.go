package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// TestRelationsPlan writes a small plan over MCP and works it the way the
// instructions teach: relate_tickets, get_ticket's links and readiness,
// list_tickets ready and parent, claim_next handing out only what is ready,
// a refused cycle, a replay and unrelate_tickets.
func TestRelationsPlan(t *testing.T) {
	for _, backend := range relationBackends {
		t.Run("store="+backend, func(t *testing.T) {
			e := newEnv(t, envOptions{backend: backend})
			cs := connect(t, e.URL, modernVersion, nil)
			for i, title := range []string{"Parser epic", "Write the parser", "Ship the parser"} {
				if _, err := e.Svc.CreateTicket(human(), board.CreateTicketInput{RequestID: string(rune('a' + i)), Workspace: "inbox",
					NewTicket: board.NewTicket{Title: title, Priority: board.PriorityUrgent}}); err != nil {
					t.Fatal(err)
				}
			}
			// inbox-1 is the parent of 2 and 3; 2 blocks 3.
			call[board.RelationResult](t, cs, "relate_tickets", map[string]any{"request_id": "p2", "id": "inbox-1", "kind": "parent", "other": "inbox-2"})
			call[board.RelationResult](t, cs, "relate_tickets", map[string]any{"request_id": "p3", "id": "inbox-1", "kind": "parent", "other": "inbox-3"})
			blocks := map[string]any{"request_id": "b", "id": "inbox-2", "kind": "blocks", "other": "inbox-3"}
			first := call[board.RelationResult](t, cs, "relate_tickets", blocks)
			if again := call[board.RelationResult](t, cs, "relate_tickets", blocks); !again.Replayed || again.Changed != first.Changed {
				t.Errorf("replayed relate: %+v, first %+v", again, first)
			}
			d := call[board.TicketDetail](t, cs, "get_ticket", map[string]any{"id": "inbox-3"})
			if len(d.BlockedBy) != 1 || d.BlockedBy[0].ID != "inbox-2" || d.BlockedBy[0].Title != "Write the parser" || d.Ready || d.Parent == nil || d.Parent.ID != "inbox-1" {
				t.Errorf("get_ticket inbox-3: blocked_by %+v ready %v parent %+v", d.BlockedBy, d.Ready, d.Parent)
			}
			epic := call[board.TicketDetail](t, cs, "get_ticket", map[string]any{"id": "inbox-1"})
			if epic.Children.Total != 2 || epic.Children.Done != 0 || len(epic.Children.Tickets) != 2 {
				t.Errorf("get_ticket inbox-1 children: %+v", epic.Children)
			}
			msg := callErr(t, cs, "relate_tickets", map[string]any{"request_id": "cyc", "id": "inbox-3", "kind": "blocks", "other": "inbox-2"})
			if !strings.Contains(msg, "cycle") || !strings.Contains(msg, "unrelate_tickets") {
				t.Errorf("a cycle's refusal: %q", msg)
			}
			ready := call[board.TicketList](t, cs, "list_tickets", map[string]any{"workspace": "inbox", "ready": true, "parent": "inbox-1"})
			if len(ready.Tickets) != 1 || ready.Tickets[0].ID != "inbox-2" {
				t.Errorf("ready sub-tickets of inbox-1: %+v", ready.Tickets)
			}
			type claimed struct {
				Ticket *board.Ticket     `json:"ticket"`
				Claim  *board.ClaimGrant `json:"claim"`
			}
			// The epic (oldest) first, then the unblocked sub-ticket; the
			// blocked one waits until its blocker is done.
			var token string
			for _, want := range []string{"inbox-1", "inbox-2", ""} {
				got := call[claimed](t, cs, "claim_next", map[string]any{"request_id": "n" + want, "workspace": "inbox"})
				if (got.Ticket == nil) != (want == "") || (got.Ticket != nil && got.Ticket.ID != want) {
					t.Fatalf("claim_next: %+v, want %q", got.Ticket, want)
				}
				if want == "inbox-2" {
					token = got.Claim.Token
				}
			}
			call[board.ReleaseResult](t, cs, "release_ticket", map[string]any{"request_id": "r2", "id": "inbox-2", "status": "done", "claim_token": token})
			if got := call[claimed](t, cs, "claim_next", map[string]any{"request_id": "n3", "workspace": "inbox"}); got.Ticket == nil || got.Ticket.ID != "inbox-3" {
				t.Errorf("claim_next once inbox-2 is done: %+v, want inbox-3", got.Ticket)
			}
			un := call[board.RelationResult](t, cs, "unrelate_tickets", map[string]any{"request_id": "u", "id": "inbox-2", "kind": "blocks", "other": "inbox-3"})
			if !un.Changed {
				t.Errorf("unrelate: %+v", un)
			}
			if md := readText(t, cs, "ticket://inbox-3"); !strings.Contains(md, "unlinked: blocked by inbox-2") || !strings.Contains(md, "- parent: inbox-1 (candidate) Parser epic") {
				t.Errorf("ticket://inbox-3 does not name the relation's history:\n%s", md)
			}
		})
	}
}

// relationBackends are the stores the plan runs on, as TestClaimLoop.
var relationBackends = []string{"", "minidyn"}
