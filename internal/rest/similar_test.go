package rest_test

import (
	"encoding/json"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// POST /workspaces/{slug}/tickets answers similar as create_ticket does:
// the open tickets whose titles share most words with the new one, on a
// retry with the same key too.
func TestCreateAnswersSimilar(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		{
			e := newEnv(t, backend)
			alice := e.tokens["alice"]
			create := func(key, title string, status int) board.CreatedTicket {
				a := e.ok(call{method: "POST", path: "/api/v1/workspaces/inbox/tickets", token: alice, key: key, body: map[string]any{"title": title}}, status)
				var out board.CreatedTicket
				if err := json.Unmarshal(a.body, &out); err != nil {
					t.Fatalf("%s: %v", a.body, err)
				}
				return out
			}
			first := create("k1", "Printer jams on floor two", 201)
			create("k2", "Coffee machine", 201)
			for _, replay := range []bool{false, true} {
				got := create("k3", "Printer jams again", 201)
				if got.Replayed != replay {
					t.Fatalf("replayed = %v, want %v", got.Replayed, replay)
				}
				if len(got.Similar) != 1 || got.Similar[0].ID != first.Ticket.ID || got.Similar[0].SharedWords != 2 {
					t.Errorf("similar (replay %v) = %+v, want %s sharing 2 words", replay, got.Similar, first.Ticket.ID)
				}
			}
		}
	})
}
