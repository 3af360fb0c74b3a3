package mcpserver_test

import (
	"encoding/json"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Every event about a ticket names its title, and an update keeps the
// before and after values of the short fields it changed (body and links
// only by name), so a reader of the history or the feed needs no second
// read to say what happened.
func TestEventsCarryTitleAndValues(t *testing.T) {
	onEachStore(t, envOptions{}, func(t *testing.T, e *env) { eventsCarryTitleAndValues(t, e) })
}

func eventsCarryTitleAndValues(t *testing.T, e *env) {
	cs := connect(t, e.URL, modernVersion, nil)
	made := call[board.TicketResult](t, cs, "create_ticket", map[string]any{"request_id": "c", "workspace": "inbox", "title": "Old title",
		"tags": []string{"a"}, "owner": "human"})
	id := made.Ticket.ID
	call[board.TicketResult](t, cs, "update_ticket", map[string]any{"request_id": "u", "id": id, "title": "New title",
		"priority": "high", "owner": nil, "due": "2026-12-24", "tags": []string{"a", "b"}, "body": "longer text"})
	call[board.MoveResult](t, cs, "move_ticket", map[string]any{"request_id": "m", "id": id, "status": "doing"})
	call[board.NoteResult](t, cs, "add_note", map[string]any{"request_id": "n", "id": id, "body": "note"})

	d := call[board.TicketDetail](t, cs, "get_ticket", map[string]any{"id": id})
	if len(d.History) != 4 {
		t.Fatalf("history: %+v, want create, update, move, note", d.History)
	}
	for i, want := range []string{"Old title", "New title", "New title", "New title"} {
		if d.History[i].Title != want {
			t.Errorf("event %d (%s) title %q, want %q", i, d.History[i].Type, d.History[i].Title, want)
		}
	}
	got, _ := json.Marshal(d.History[1].Changes)
	wantChanges := `[{"field":"title","before":"Old title","after":"New title"},` +
		`{"field":"priority","before":"normal","after":"high"},` +
		`{"field":"owner","before":"human","after":null},` +
		`{"field":"due","before":null,"after":"2026-12-24"},` +
		`{"field":"tags","before":["a"],"after":["a","b"]}]`
	if string(got) != wantChanges {
		t.Errorf("update's changes:\n got %s\nwant %s", got, wantChanges)
	}
	if f := d.History[1].Fields; len(f) != 6 || f[1] != "body" {
		t.Errorf("update's fields %v, want body named among the six", f)
	}

	feed := call[board.ActivityList](t, cs, "list_activity", map[string]any{"workspace": "inbox"})
	if len(feed.Events) == 0 || feed.Events[0].Title != "New title" {
		t.Errorf("newest activity %+v, want it to name the ticket's title", feed.Events)
	}
}
