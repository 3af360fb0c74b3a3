package sqlite_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/google/uuid"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

// TestEditNoteByBareID: a note written before ids named their ticket has a
// bare UUID, and the embedded store keys notes by id, so that id alone
// still finds it: edit_note takes it as it was handed out.
func TestEditNoteByBareID(t *testing.T) {
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
	alice := board.WithPrincipal(t.Context(), board.Principal{Author: "human:alice", Source: board.SourceWeb})
	if _, err := svc.CreateTicket(alice, board.CreateTicketInput{RequestID: "c", Workspace: "inbox", NewTicket: board.NewTicket{Title: "Printer"}}); err != nil {
		t.Fatal(err)
	}
	added, err := svc.AddNote(alice, board.AddNoteInput{RequestID: "n", ID: "inbox-1", Body: "teh toner"})
	if err != nil {
		t.Fatal(err)
	}
	// The note as an earlier release wrote it, behind the store's back.
	old := uuid.NewString()
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`UPDATE notes SET id = ? WHERE id = ?`, old, added.Note.ID); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetNote(t.Context(), board.NoteRef{ID: old})
	if err != nil || got.Body != "teh toner" {
		t.Fatalf("GetNote by the bare id: %+v, %v", got, err)
	}
	res, err := svc.EditNote(alice, board.EditNoteInput{RequestID: "e", NoteID: old, Body: "the toner"})
	if err != nil || res.Note.ID != old || res.Note.Body != "the toner" {
		t.Fatalf("edit by the bare id: %+v, %v", res, err)
	}
	if _, err := s.GetNote(t.Context(), board.NoteRef{ID: old, TicketID: "inbox-2"}); err != board.ErrNotFound {
		t.Errorf("GetNote with another ticket: %v, want ErrNotFound", err)
	}
}
