package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A file at version 10 kept its tickets' title words in a table, by
// triggers on every write; opening it drops both, and the similar lookup
// finds the tickets from memory, before and after a write.
func TestMigrateDropsTitleWords(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := board.NewService(board.Config{Store: s, BaseURL: "http://x"})
	if err != nil {
		t.Fatal(err)
	}
	ai := board.WithPrincipal(ctx, board.Principal{Author: "ai:old", Source: board.SourceMCP})
	for i, title := range []string{"Printer jams on floor two", "Printer jams again", "Coffee machine"} {
		if _, err := svc.CreateTicket(ai, board.CreateTicketInput{RequestID: strings.Repeat("c", i+1), Workspace: "inbox", NewTicket: board.NewTicket{Title: title}}); err != nil {
			t.Fatal(err)
		}
	}
	// The file as version 10 left it: the table filled, its triggers.
	if err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := migrateTitleWords(ctx, tx); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `PRAGMA user_version = 10`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := schemaObjects(t, s); got != "table ticket_title_words, trigger tickets_retitled, trigger tickets_titled, trigger tickets_untitled" {
		t.Fatalf("the version 10 file was not set up: %s", got)
	}
	s.Close()

	s, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("opening a version 10 file: %v", err)
	}
	defer s.Close()
	if got := schemaObjects(t, s); got != "" {
		t.Errorf("after the migration: %s left", got)
	}
	var version int
	if err := s.read.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil || version != schemaVersion {
		t.Errorf("user_version %d (%v), want %d", version, err, schemaVersion)
	}
	svc, err = board.NewService(board.Config{Store: s, BaseURL: "http://x"})
	if err != nil {
		t.Fatal(err)
	}
	title := "Printer jams in the lobby"
	if _, err := svc.UpdateTicket(ai, board.UpdateTicketInput{RequestID: "u", ID: "inbox-3", Title: &title}); err != nil {
		t.Fatalf("a write after the migration: %v", err)
	}
	similar, err := svc.SimilarTickets(ai, board.SimilarInput{Workspace: "inbox", Title: "printer jams"})
	if err != nil || len(similar) != 3 || similar[0].ID != "inbox-3" || similar[1].ID != "inbox-2" || similar[2].ID != "inbox-1" {
		t.Errorf("similar to %q: %+v, %v; want inbox-3, inbox-2, inbox-1", "printer jams", similar, err)
	}
}

// schemaObjects lists the title-word table and its triggers as the file
// holds them, sorted.
func schemaObjects(t *testing.T, s *Store) string {
	t.Helper()
	rows, err := s.read.QueryContext(context.Background(), `SELECT type || ' ' || name FROM sqlite_master
		WHERE name IN ('ticket_title_words', 'tickets_titled', 'tickets_retitled', 'tickets_untitled') ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var r string
		if err := rows.Scan(&r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return strings.Join(out, ", ")
}
