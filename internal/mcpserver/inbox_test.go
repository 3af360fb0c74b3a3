package mcpserver_test

import (
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// TestInboxTools: a person hands work to the agent by mentioning it; the
// agent finds it with list_inbox, marks it read exactly once per
// request_id, and a hidden workspace's mention never shows.
func TestInboxTools(t *testing.T) {
	onEachStore(t, envOptions{}, func(t *testing.T, e *env) {
		cs := connect(t, e.URL, modernVersion, nil)
		for _, ws := range []string{"inbox", "private"} {
			tk, err := e.Svc.CreateTicket(human(), board.CreateTicketInput{RequestID: "c-" + ws, Workspace: ws, NewTicket: board.NewTicket{Title: "For the agent"}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.Svc.AddNote(human(), board.AddNoteInput{RequestID: "n-" + ws, ID: tk.Ticket.ID, Body: "@ai:tester please take this"}); err != nil {
				t.Fatal(err)
			}
		}
		got := call[board.InboxList](t, cs, "list_inbox", map[string]any{"unread_only": true})
		if len(got.Items) != 1 || got.Items[0].TicketID != "inbox-1" || got.Items[0].Reason != board.InboxMention || got.NextCursor != nil {
			t.Fatalf("list_inbox: %+v, want the one mention in inbox-1", got)
		}
		mark := map[string]any{"request_id": "read-1", "ids": []string{got.Items[0].ID}}
		first := call[board.MarkInboxReadResult](t, cs, "mark_inbox_read", mark)
		if first.Marked != 1 || first.Replayed {
			t.Errorf("mark_inbox_read: %+v", first)
		}
		if again := call[board.MarkInboxReadResult](t, cs, "mark_inbox_read", mark); !again.Replayed || again.Marked != 1 {
			t.Errorf("mark_inbox_read replay: %+v, want the first answer, replayed", again)
		}
		if left := call[board.InboxList](t, cs, "list_inbox", map[string]any{"unread_only": true}); len(left.Items) != 0 {
			t.Errorf("unread after marking: %+v", left.Items)
		}
		if all := call[board.InboxList](t, cs, "list_inbox", map[string]any{}); len(all.Items) != 1 || !all.Items[0].Read || all.Unread != 0 {
			t.Errorf("the inbox after marking: %+v, want the item, read, and nothing unread (the hidden workspace told the agent nothing)", all)
		}
		callErr(t, cs, "mark_inbox_read", map[string]any{"request_id": "read-2"})
	})
}
