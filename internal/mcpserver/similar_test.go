package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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

// A replay of create_ticket answers exactly what the first answer said,
// similar tickets included, however the board changed since: a newer
// ticket like it, a similar ticket renamed. Its similar tickets were
// stored with the result; a lookup made now would answer others (the
// last create shows what that would be). On SQLite, minidyn, and the
// DynamoDB endpoint under LEDGER_TEST_STORE=dynamodb.
func TestCreateTicketReplayAnswersTheFirstAnswer(t *testing.T) {
	onStoresAndRevisions(t, func(t *testing.T, e *env, cs *mcpSession) {
		call[board.CreatedTicket](t, cs, "create_ticket", map[string]any{"request_id": "r1", "workspace": "inbox", "title": "Login fails on Safari", "owner": "ai:tester"})
		args := map[string]any{"request_id": "r2", "workspace": "inbox", "title": "Safari login fails again"}
		first := createdText(t, callRaw(t, cs, "create_ticket", args))
		call[board.CreatedTicket](t, cs, "create_ticket", map[string]any{"request_id": "r3", "workspace": "inbox", "title": "Safari login fails on Monday"})
		call[board.TicketResult](t, cs, "update_ticket", map[string]any{"request_id": "r4", "id": "inbox-1", "title": "Login fails on Safari (renamed)"})

		replay := createdText(t, callRaw(t, cs, "create_ticket", args))
		want := strings.Replace(first, `"replayed":false`, `"replayed":true`, 1)
		if replay != want {
			t.Errorf("replay answered\n%s\nwant the first answer (replayed: true)\n%s", replay, want)
		}
		var got board.CreatedTicket
		if err := json.Unmarshal([]byte(replay), &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Similar) != 1 || got.Similar[0].ID != "inbox-1" || got.Similar[0].Title != "Login fails on Safari" ||
			got.Similar[0].Owner == nil || *got.Similar[0].Owner != "ai:tester" || got.Similar[0].URL != "http://board.test/tickets/inbox-1" {
			t.Errorf("replayed similar = %+v, want inbox-1 as it was named then", got.Similar)
		}
		// What a lookup made now says, so the comparison above is not
		// vacuous.
		now := call[board.CreatedTicket](t, cs, "create_ticket", map[string]any{"request_id": "r5", "workspace": "inbox", "title": "Safari login fails again"})
		if len(now.Similar) < 2 {
			t.Errorf("a new lookup found %+v, want the newer ticket too", now.Similar)
		}
	})
}

// createdText is a successful create_ticket answer as the server sent it:
// its text content, which is its structured content encoded.
func createdText(t *testing.T, res *mcpResult) string {
	t.Helper()
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("create_ticket: error %v, %d contents", res.IsError, len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("create_ticket answered %T, want text", res.Content[0])
	}
	return text.Text
}

// A record stored without similar tickets (one written before they were
// stored, as CreateTicket still writes it) replays with none: the answer
// comes from the record alone, never from a lookup made now.
func TestCreateTicketReplayOfARecordWithoutSimilar(t *testing.T) {
	onStoresAndRevisions(t, func(t *testing.T, e *env, cs *mcpSession) {
		call[board.CreatedTicket](t, cs, "create_ticket", map[string]any{"request_id": "o1", "workspace": "inbox", "title": "Login fails on Safari"})
		in := board.CreateTicketInput{RequestID: "o2", Workspace: "inbox", NewTicket: board.NewTicket{Title: "Safari login fails again"}}
		if _, err := e.Svc.CreateTicket(board.WithPrincipal(context.Background(), agent), in); err != nil {
			t.Fatal(err)
		}
		got := call[board.CreatedTicket](t, cs, "create_ticket", map[string]any{"request_id": "o2", "workspace": "inbox", "title": "Safari login fails again"})
		if !got.Replayed || got.Ticket.ID != "inbox-2" {
			t.Fatalf("create = %s replayed %v, want the replay of inbox-2", got.Ticket.ID, got.Replayed)
		}
		if got.Similar == nil || len(got.Similar) != 0 {
			t.Errorf("similar = %#v, want an empty list (none stored)", got.Similar)
		}
		if raw := createdText(t, callRaw(t, cs, "create_ticket", map[string]any{"request_id": "o2", "workspace": "inbox", "title": "Safari login fails again"})); !strings.Contains(raw, `"similar":[]`) {
			t.Errorf("replay answered %s, want similar as an empty list", raw)
		}
	})
}
