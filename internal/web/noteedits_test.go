package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// TestNoteEditForms: the ticket page offers Edit on the person's own notes
// only and Redact to admins only; an edit is saved once however often it
// is sent, the page says "edited"; a refused edit comes back open with
// what was typed; a redaction shows the placeholder and why.
func TestNoteEditForms(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("alice", board.RoleMember)
		e.addPerson("root", board.RoleAdmin)
		as := func(handle string) context.Context {
			return board.WithPrincipal(context.Background(), board.Principal{Author: "human:" + handle, Source: board.SourceWeb})
		}
		if _, err := e.svc.CreateTicket(as("alice"), board.CreateTicketInput{RequestID: "c", Workspace: "inbox", NewTicket: board.NewTicket{Title: "Printer"}}); err != nil {
			t.Fatal(err)
		}
		mine, err := e.svc.AddNote(as("alice"), board.AddNoteInput{RequestID: "n1", ID: "inbox-1", Body: "teh toner"})
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := e.svc.AddNote(as("bob"), board.AddNoteInput{RequestID: "n2", ID: "inbox-1", Body: "bob's note"})
		if err != nil {
			t.Fatal(err)
		}
		b := e.browser()
		b.signIn("alice", testPassword)
		editPath := "/tickets/inbox-1/notes/" + mine.Note.ID + "/edit"
		tp := b.get("/tickets/inbox-1")
		if !strings.Contains(tp.body, `action="`+editPath+`"`) || strings.Contains(tp.body, "/notes/"+theirs.Note.ID+"/edit") || strings.Contains(tp.body, "/redact") {
			t.Fatalf("a member's ticket page: want Edit on her own note only, no Redact")
		}
		// Refused: an empty body comes back open, the field marked.
		bad := url.Values{"request_id": {formRequestID(t, tp.body, editPath)}, "body": {""}}
		if r := b.post(editPath, bad); r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, `<details class="note-edit" open>`) || !strings.Contains(r.body, `aria-invalid="true"`) {
			t.Fatalf("an empty edit: %d, want 422 with the form open and marked", r.status)
		}
		edit := url.Values{"request_id": {formRequestID(t, tp.body, editPath)}, "body": {"the **toner**"}}
		for range 2 {
			if r := b.post(editPath, edit); r.status != http.StatusSeeOther || !strings.HasSuffix(r.header.Get("Location"), "#notes") {
				t.Fatalf("edit: %d %v", r.status, r.header)
			}
		}
		d, _ := e.svc.GetTicket(as("alice"), board.TicketIDInput{ID: "inbox-1"})
		edits := 0
		for _, ev := range d.History {
			if ev.Type == board.EventNoteEdited {
				edits++
			}
		}
		var body string
		for _, n := range d.Notes {
			if n.ID == mine.Note.ID {
				body = n.Body
			}
		}
		if edits != 1 || body != "the **toner**" {
			t.Fatalf("after the edit sent twice: %d note.edited events, body %q", edits, body)
		}
		tp = b.get("/tickets/inbox-1")
		if !strings.Contains(tp.body, "<strong>toner</strong>") || !strings.Contains(tp.body, `class="note-edited"`) || !strings.Contains(tp.body, "edited a note") {
			t.Fatal("the ticket page does not show the edited note, its mark and the history line")
		}

		admin := e.browser()
		admin.signIn("root", testPassword)
		redactPath := "/tickets/inbox-1/notes/" + theirs.Note.ID + "/redact"
		ap := admin.get("/tickets/inbox-1")
		red := url.Values{"request_id": {formRequestID(t, ap.body, redactPath)}, "reason": {"posted by mistake"}}
		if r := admin.post(redactPath, red); r.status != http.StatusSeeOther {
			t.Fatalf("redact: %d %s", r.status, r.body)
		}
		ap = admin.get("/tickets/inbox-1")
		if !strings.Contains(ap.body, board.RedactedNoteBody) || strings.Contains(ap.body, "bob&#39;s note") || !strings.Contains(ap.body, "posted by mistake") {
			t.Fatal("the ticket page does not show the redaction")
		}
	})
}
