package rest_test

import (
	"bytes"
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

// A retry of POST /workspaces/{slug}/tickets answers the first answer's
// bytes (replayed: true aside), similar tickets included, however the
// board changed in between: the similar tickets were stored with the
// result, not looked up again.
func TestCreateRetryAnswersTheFirstAnswer(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend)
		alice := e.tokens["alice"]
		create := func(key, title string, status int) []byte {
			return e.ok(call{method: "POST", path: "/api/v1/workspaces/inbox/tickets", token: alice, key: key, body: map[string]any{"title": title}}, status).body
		}
		first := create("k1", "Printer jams on floor two", 201)
		var printer board.CreatedTicket
		if err := json.Unmarshal(first, &printer); err != nil {
			t.Fatal(err)
		}
		answer := create("k2", "Printer jams again", 201)
		create("k3", "Printer jams on floor three", 201)
		e.ok(call{method: "PATCH", path: "/api/v1/tickets/" + printer.Ticket.ID, token: alice, key: "k4", body: map[string]any{"title": "Printer jams (renamed)"}}, 200)

		retry := create("k2", "Printer jams again", 201)
		want := bytes.Replace(answer, []byte(`"replayed":false`), []byte(`"replayed":true`), 1)
		if !bytes.Equal(retry, want) {
			t.Errorf("retry answered\n%s\nwant the first answer (replayed: true)\n%s", retry, want)
		}
		var got board.CreatedTicket
		if err := json.Unmarshal(retry, &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Similar) != 1 || got.Similar[0].ID != printer.Ticket.ID || got.Similar[0].Title != "Printer jams on floor two" {
			t.Errorf("retried similar = %+v, want %s as it was named then", got.Similar, printer.Ticket.ID)
		}
	})
}
