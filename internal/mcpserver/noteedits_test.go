package mcpserver_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
)

// TestEditNote corrects a note over MCP on the embedded store and on
// minidyn: the author's edit, its replay, another agent's refusal, the
// agent's refused redaction, and the ticket resource showing the edit, the
// history line and, after an admin's redaction, the placeholder and why.
func TestEditNote(t *testing.T) {
	for _, backend := range []string{"", "minidyn"} {
		t.Run("store="+backend, func(t *testing.T) {
			e := newEnv(t, envOptions{backend: backend})
			cs := connect(t, e.URL, modernVersion, nil)
			other := mcpserver.NewServer(e.Svc, mcpserver.Options{Principal: mcpserver.StaticPrincipal(board.Principal{Author: "ai:other", Source: board.SourceMCP})})
			ts := httptest.NewServer(mcpserver.Handler(other, mcpserver.HandlerOptions{}))
			t.Cleanup(ts.Close)
			rival := connect(t, ts.URL+"/mcp", modernVersion, nil)
			if _, err := e.Svc.CreateTicket(human(), board.CreateTicketInput{RequestID: "c", Workspace: "inbox", NewTicket: board.NewTicket{Title: "Printer"}}); err != nil {
				t.Fatal(err)
			}
			added := call[board.NoteResult](t, cs, "add_note", map[string]any{"request_id": "n1", "id": "inbox-1", "body": "teh toner"})
			if !strings.HasPrefix(added.Note.ID, "inbox-1~") {
				t.Fatalf("note id %q does not name its ticket", added.Note.ID)
			}
			args := map[string]any{"request_id": "e1", "note_id": added.Note.ID, "body": "the toner"}
			edited := call[board.NoteResult](t, cs, "edit_note", args)
			if edited.Replayed || edited.Note.Body != "the toner" || edited.Note.EditedAt == nil {
				t.Fatalf("edit_note: %+v", edited)
			}
			if again := call[board.NoteResult](t, cs, "edit_note", args); !again.Replayed || again.Note.Body != "the toner" || !again.Note.EditedAt.Equal(*edited.Note.EditedAt) {
				t.Errorf("edit_note replay: %+v, want the first answer", again)
			}
			if msg := callErr(t, rival, "edit_note", map[string]any{"request_id": "o1", "note_id": added.Note.ID, "body": "mine now"}); !strings.Contains(msg, "only the note's author (ai:tester)") {
				t.Errorf("another agent's edit: %q", msg)
			}
			if msg := callErr(t, cs, "redact_note", map[string]any{"request_id": "r1", "note_id": added.Note.ID, "reason": "oops"}); !strings.Contains(msg, "only an admin") {
				t.Errorf("an agent's redaction: %q", msg)
			}
			md := readText(t, cs, "ticket://inbox-1")
			if !strings.Contains(md, "the toner\n") || strings.Contains(md, "teh toner") || !strings.Contains(md, "by ai:tester (edited ") || !strings.Contains(md, "note edited by ai:tester") {
				t.Errorf("ticket://inbox-1 does not show the edit:\n%s", md)
			}
			if _, err := e.Svc.RedactNote(human(), board.RedactNoteInput{RequestID: "r2", NoteID: added.Note.ID, Reason: "not for here"}); err != nil {
				t.Fatal(err)
			}
			md = readText(t, cs, "ticket://inbox-1")
			if !strings.Contains(md, board.RedactedNoteBody) || !strings.Contains(md, "(redacted by human: not for here)") || !strings.Contains(md, "note redacted (not for here)") {
				t.Errorf("ticket://inbox-1 does not show the redaction:\n%s", md)
			}
		})
	}
}
