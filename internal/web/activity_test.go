package web_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

var olderNotes = regexp.MustCompile(`href="(/tickets/inbox-1\?notes=[^"#]+)#notes"`)

// A ticket's page shows its newest 20 notes; the older ones are a link away,
// a page at a time, so none is out of a person's reach.
func TestTicketPagePagesOlderNotes(t *testing.T) {
	e := newEnv(t, "sqlite", auth.ModeRequired)
	e.addPerson("alice", board.RoleMember)
	b := e.browser()
	b.signIn("alice", testPassword)
	ctx := board.WithPrincipal(context.Background(), board.Principal{Author: "human:alice", Source: board.SourceWeb})
	if _, err := e.svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: "c", Workspace: "inbox", NewTicket: board.NewTicket{Title: "busy"}}); err != nil {
		t.Fatal(err)
	}
	for i := range 25 {
		if _, err := e.svc.AddNote(ctx, board.AddNoteInput{RequestID: fmt.Sprintf("n%d", i), ID: "inbox-1", Body: fmt.Sprintf("note number %02d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	page := b.get("/tickets/inbox-1")
	if page.status != http.StatusOK || !strings.Contains(page.body, "note number 24") || !strings.Contains(page.body, "note number 05") ||
		strings.Contains(page.body, "note number 04") {
		t.Fatalf("the ticket page should show notes 05-24: %d", page.status)
	}
	m := olderNotes.FindStringSubmatch(page.body)
	if m == nil {
		t.Fatal("no link to the older notes")
	}
	older := b.get(html.UnescapeString(m[1]))
	for i := range 5 {
		if !strings.Contains(older.body, fmt.Sprintf("note number %02d", i)) {
			t.Errorf("the older page lacks note %02d", i)
		}
	}
	if strings.Contains(older.body, "note number 05") || olderNotes.MatchString(older.body) || !strings.Contains(older.body, "Back to the newest") {
		t.Error("the older page should hold notes 00-04 only, link back, and no further page")
	}
}
