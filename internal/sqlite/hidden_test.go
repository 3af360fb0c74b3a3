package sqlite_test

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

// TestHiddenTicketReadsNoActivity: get_ticket decides the policy before it
// reads notes and history. The hidden ticket's notes and history hold a
// row that cannot be read (a note with no valid time, an event that is not
// JSON): reading them fails, as the unbounded read shows. An AI caller's
// get_ticket answers "not found", word for word what an absent id gets, so
// the store never read them: a hidden ticket costs what an absent one does
// (one indexed row), however much activity it has.
func TestHiddenTicketReadsNoActivity(t *testing.T) {
	path := filepath.Join(t.TempDir(), sqlite.FileName)
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	svc, err := board.NewService(board.Config{Store: s, BaseURL: "http://x"})
	if err != nil {
		t.Fatal(err)
	}
	person := board.WithPrincipal(t.Context(), board.Principal{Author: "human", Source: board.SourceWeb})
	if _, err := svc.CreateTicket(person, board.CreateTicketInput{RequestID: "c", Workspace: "private", NewTicket: board.NewTicket{Title: "secret"}}); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if _, err := svc.AddNote(person, board.AddNoteInput{RequestID: fmt.Sprintf("n%d", i), ID: "private-1", Body: "hidden note"}); err != nil {
			t.Fatal(err)
		}
	}

	// The traps, written behind the store's back.
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`INSERT INTO notes (id, ticket_id, body, author, source, created_at)
		VALUES ('trap', 'private-1', 'x', 'human', 'web', '9999-not-a-time')`); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`INSERT INTO events (id, workspace, ticket_id, data) VALUES ('trap', 'private', 'private-1', 'not json')`); err != nil {
		t.Fatal(err)
	}

	// The traps work: reading this ticket's activity fails.
	if _, err := s.ReadTicket(t.Context(), board.TicketRead{ID: "private-1", Notes: 20, Events: 20}); err == nil {
		t.Fatal("reading the trapped activity succeeded: the traps would prove nothing")
	}
	if _, err := s.ListHistory(t.Context(), board.ActivityQuery{TicketID: "private-1", Limit: 5}); err == nil {
		t.Fatal("reading the trapped history succeeded: the trap would prove nothing")
	}

	// An AI caller never reaches them, in any of the reads of a ticket.
	ai := board.WithPrincipal(t.Context(), board.Principal{Author: "ai:probe", Source: board.SourceMCP})
	_, hidden := svc.GetTicket(ai, board.TicketIDInput{ID: "private-1"})
	_, absent := svc.GetTicket(ai, board.TicketIDInput{ID: "private-999"})
	if hidden == nil || board.ErrorCode(hidden) != board.CodeNotFound {
		t.Fatalf("get_ticket of a hidden ticket: %v, want not found", hidden)
	}
	want := "ticket 'private-1' not found; call list_tickets to find ticket ids"
	if hidden.Error() != want {
		t.Errorf("hidden ticket: %q, want %q", hidden, want)
	}
	if absent == nil || board.ErrorCode(absent) != board.CodeNotFound {
		t.Errorf("absent ticket: %v", absent)
	}
	for name, call := range map[string]func() error{
		"list_ticket_notes": func() error {
			_, err := svc.ListTicketNotes(ai, board.TicketActivityInput{ID: "private-1"})
			return err
		},
		"list_ticket_history": func() error {
			_, err := svc.ListTicketHistory(ai, board.TicketActivityInput{ID: "private-1"})
			return err
		},
	} {
		if err := call(); err == nil || err.Error() != want {
			t.Errorf("%s of a hidden ticket: %v, want %q", name, err, want)
		}
	}
	// And at the store: refused by policy, not by the trap.
	_, err = s.ReadTicket(t.Context(), board.TicketRead{ID: "private-1", Notes: 20, Events: 20,
		Readable: []board.AIPolicy{board.PolicyReadWrite, board.PolicyReadOnly}})
	var denied *board.PolicyError
	if !errors.As(err, &denied) {
		t.Errorf("ReadTicket for AI: %v, want *board.PolicyError before any activity is read", err)
	}
}
