package mcpserver_test

import (
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// create_ticket answers similar: the open tickets whose titles share most
// words with the new one, never the new ticket itself, on both protocol
// revisions, and on a replay as well; the ticket is created either way.
func TestCreateTicketAnswersSimilar(t *testing.T) {
	onEachStoreAndRevision(t, func(t *testing.T, e *env, version string) {
		cs := connect(t, e.URL, version, nil)
		first := call[board.CreatedTicket](t, cs, "create_ticket", map[string]any{"request_id": "s1", "workspace": "inbox", "title": "Login fails on Safari"})
		if len(first.Similar) != 0 {
			t.Errorf("the first ticket's similar = %+v, want none", first.Similar)
		}
		call[board.CreatedTicket](t, cs, "create_ticket", map[string]any{"request_id": "s2", "workspace": "inbox", "title": "Quarterly billing report"})
		args := map[string]any{"request_id": "s3", "workspace": "inbox", "title": "Safari: login fails again"}
		for _, replay := range []bool{false, true} {
			got := call[board.CreatedTicket](t, cs, "create_ticket", args)
			if got.Replayed != replay || got.Ticket.ID != "inbox-3" {
				t.Fatalf("create (replay %v) = %s replayed %v, want inbox-3 replayed %v", replay, got.Ticket.ID, got.Replayed, replay)
			}
			if len(got.Similar) != 1 || got.Similar[0].ID != first.Ticket.ID || got.Similar[0].SharedWords != 3 ||
				got.Similar[0].Title != "Login fails on Safari" || got.Similar[0].Status != board.StatusCandidate || got.Similar[0].URL != first.Ticket.URL {
				t.Errorf("similar (replay %v) = %+v, want inbox-1 sharing 3 words", replay, got.Similar)
			}
		}
		if n := countTickets(t, e.Store, "inbox"); n != 3 {
			t.Errorf("%d tickets in inbox, want 3: similar informs, it never refuses", n)
		}
	})
}
