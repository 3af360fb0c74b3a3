package mcpserver_test

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// list_activity without a workspace tells an agent nothing of a workspace
// hidden from it (a person's write there between two of the agent's leaves
// the page after the first as it was), and every cursor tool takes only
// cursors the server handed out, unchanged.
func TestListActivityHoldsHiddenWorkspaces(t *testing.T) {
	onEachStore(t, envOptions{}, func(t *testing.T, e *env) {
		cs := connect(t, e.URL, modernVersion, nil)
		first := call[board.TicketResult](t, cs, "create_ticket", map[string]any{"request_id": "h1", "workspace": "inbox", "title": "first"})
		if _, err := e.Svc.CreateTicket(human(), board.CreateTicketInput{RequestID: "secret", Workspace: "private", NewTicket: board.NewTicket{Title: "secret"}}); err != nil {
			t.Fatal(err)
		}
		call[board.TicketResult](t, cs, "create_ticket", map[string]any{"request_id": "h2", "workspace": "inbox", "title": "second"})

		since := first.Ticket.CreatedAt.Format(time.RFC3339Nano)
		page := call[board.ActivityList](t, cs, "list_activity", map[string]any{"since": since, "limit": 1})
		if len(page.Events) != 1 || page.NextCursor != nil || page.Partial {
			t.Errorf("since the first write, limit 1: %d events, cursor %v, partial %v; want the second write and nothing more", len(page.Events), page.NextCursor, page.Partial)
		}
		none := call[board.ActivityList](t, cs, "list_activity", map[string]any{"by": "ai:nobody", "limit": 1})
		if len(none.Events) != 0 || none.NextCursor != nil || none.Partial {
			t.Errorf("by ai:nobody: %d events, cursor %v, partial %v; want an empty last page", len(none.Events), none.NextCursor, none.Partial)
		}

		// Cursors of every list: the genuine one works, altered ones do not.
		call[board.TicketResult](t, cs, "create_ticket", map[string]any{"request_id": "h3", "workspace": "inbox", "title": "third"})
		for i := range 2 {
			call[board.TicketResult](t, cs, "add_note", map[string]any{"request_id": "n" + string(rune('a'+i)), "id": first.Ticket.ID, "body": "note"})
		}
		tickets := call[board.TicketList](t, cs, "list_tickets", map[string]any{"workspace": "inbox", "limit": 1})
		feed := call[board.ActivityList](t, cs, "list_activity", map[string]any{"workspace": "inbox", "limit": 1})
		notes := call[board.NoteList](t, cs, "list_ticket_notes", map[string]any{"id": first.Ticket.ID, "limit": 1})
		history := call[board.HistoryList](t, cs, "list_ticket_history", map[string]any{"id": first.Ticket.ID, "limit": 1})
		for _, c := range []struct {
			tool   string
			args   map[string]any
			cursor *string
		}{
			{"list_tickets", map[string]any{"workspace": "inbox", "limit": 1}, tickets.NextCursor},
			{"list_activity", map[string]any{"workspace": "inbox", "limit": 1}, feed.NextCursor},
			{"list_ticket_notes", map[string]any{"id": first.Ticket.ID, "limit": 1}, notes.NextCursor},
			{"list_ticket_history", map[string]any{"id": first.Ticket.ID, "limit": 1}, history.NextCursor},
		} {
			if c.cursor == nil {
				t.Fatalf("%s: a first page of one has no cursor", c.tool)
			}
			c.args["cursor"] = *c.cursor
			if res := callRaw(t, cs, c.tool, c.args); res.IsError {
				t.Errorf("%s with its own cursor: %s", c.tool, errorText(res))
			}
			body, tag, _ := strings.Cut(*c.cursor, ".")
			for name, bad := range map[string]string{
				"unsealed": body,
				"made up":  base64.RawURLEncoding.EncodeToString([]byte(`{"b":1,"f":"x","t":"`+first.Ticket.ID+`","l":"notes","a":"2026-01-01T00:00:00Z","i":"x"}`)) + "." + tag,
			} {
				c.args["cursor"] = bad
				if msg := callErr(t, cs, c.tool, c.args); !strings.Contains(msg, "omit") || !strings.Contains(msg, "start again") {
					t.Errorf("%s with a %s cursor: %q, want it refused, saying to start again without one", c.tool, name, msg)
				}
			}
		}
	})
}
