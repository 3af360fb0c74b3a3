package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// TestBrowserEditNote corrects a note in a real browser: a person opens
// Edit on their own note, changes the text and saves; the page shows the
// new text marked "edited" and the history line. An admin's redaction of
// another note, made elsewhere, reaches the open page live.
func TestBrowserEditNote(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a real browser; skipped with -short")
	}
	exe := browserPath(t)
	eachStore(t, func(t *testing.T, backend string) {
		if backend == "moto" {
			t.Skip("the browser scenarios run on SQLite and minidyn; moto adds nothing a browser can see")
		}
		e := &env{t: t, store: openStore(t, backend), clock: testbackends.NewClock(time.Now().UTC()), mode: auth.ModeRequired}
		e.serve(e.store)
		e.addPerson("alice", board.RoleMember)
		as := func(handle string, role board.Role) context.Context {
			return board.WithPrincipal(context.Background(), board.Principal{Author: "human:" + handle, Role: role, Source: board.SourceWeb})
		}
		if _, err := e.svc.CreateTicket(as("alice", board.RoleMember), board.CreateTicketInput{RequestID: "c", Workspace: "inbox", NewTicket: board.NewTicket{Title: "Printer"}}); err != nil {
			t.Fatal(err)
		}
		mine, err := e.svc.AddNote(as("alice", board.RoleMember), board.AddNoteInput{RequestID: "n1", ID: "inbox-1", Body: "teh toner is low"})
		if err != nil {
			t.Fatal(err)
		}
		e.clock.Add(time.Second)
		theirs, err := e.svc.AddNote(as("bob", board.RoleMember), board.AddNoteInput{RequestID: "n2", ID: "inbox-1", Body: "the key is hunter2"})
		if err != nil {
			t.Fatal(err)
		}
		css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
		s := startSession(t, exe, e, backend)
		s.signIn("alice")
		form := `form[action="/tickets/inbox-1/notes/` + mine.Note.ID + `/edit"]`
		s.run("open Edit on her own note",
			chromedp.Navigate(e.url+"/tickets/inbox-1"),
			chromedp.WaitVisible(css(`[id="note-`+mine.Note.ID+`"] details.note-edit summary`)),
			chromedp.Click(css(`[id="note-`+mine.Note.ID+`"] details.note-edit summary`)),
			chromedp.WaitVisible(css(form+` textarea`)))
		if n := eval[int](s, "Edit links", `document.querySelectorAll("details.note-edit").length`); n != 1 {
			t.Fatalf("%d Edit links on the page, want one: on her own note only", n)
		}
		s.run("correct the text and save",
			chromedp.SetValue(css(form+` textarea`), "the **toner** is low"),
			chromedp.Click(css(form+` button`)),
			chromedp.WaitVisible(css(`[id="note-`+mine.Note.ID+`"] .note-edited`)))
		text := eval[string](s, "the note", `document.querySelector('[id="note-`+mine.Note.ID+`"]').textContent`)
		if !strings.Contains(text, "the toner is low") || strings.Contains(text, "teh toner") || !strings.Contains(text, "edited") {
			t.Fatalf("the note reads %q", text)
		}
		if h := eval[string](s, "the history", `document.querySelector("#history").textContent`); !strings.Contains(h, "edited a note") {
			t.Fatalf("the history reads %q", h)
		}
		s.shot("note-edited.png")

		// An admin redacts bob's note elsewhere: the open page follows.
		if _, err := e.svc.RedactNote(as("root", board.RoleAdmin), board.RedactNoteInput{RequestID: "r", NoteID: theirs.Note.ID, Reason: "a password was posted"}); err != nil {
			t.Fatal(err)
		}
		s.run("the redaction arrives live",
			chromedp.WaitVisible(css(`[id="note-`+theirs.Note.ID+`"] .note-redacted`)))
		if text := eval[string](s, "the redacted note", `document.querySelector('[id="note-`+theirs.Note.ID+`"]').textContent`); strings.Contains(text, "hunter2") ||
			!strings.Contains(text, board.RedactedNoteBody) || !strings.Contains(text, "a password was posted") {
			t.Fatalf("the redacted note reads %q", text)
		}
		s.shot("note-redacted.png")
	})
}
