package sqlite

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// titleWordRows is the title-word table as "workspace number word" lines,
// sorted.
func titleWordRows(t *testing.T, s *Store) []string {
	t.Helper()
	rows, err := s.read.QueryContext(context.Background(), `SELECT workspace || ' ' || number || ' ' || word FROM ticket_title_words`)
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
	slices.Sort(out)
	return out
}

// The title-word table holds each ticket's title words (the word index's
// title tier: folded, CJK runs as pairs) and follows a change of title in
// the same write; a change of anything else leaves it alone.
func TestTitleWordsFollowTheTitle(t *testing.T) {
	s, svc := openSimilarBoard(t, 0)
	ctx := board.WithPrincipal(context.Background(), board.Principal{Author: "ai:similar", Source: board.SourceMCP})
	if _, err := svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: "a", Workspace: "inbox", NewTicket: board.NewTicket{Title: "Login FAILS on Safari"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: "b", Workspace: "inbox", NewTicket: board.NewTicket{Title: "記事案"}}); err != nil {
		t.Fatal(err)
	}
	want := []string{"inbox 1 fails", "inbox 1 login", "inbox 1 on", "inbox 1 safari", "inbox 2 事案", "inbox 2 記事"}
	if got := titleWordRows(t, s); !slices.Equal(got, want) {
		t.Fatalf("after two creates: %v, want %v", got, want)
	}
	title, body := "Safari crashes", "a body"
	if _, err := svc.UpdateTicket(ctx, board.UpdateTicketInput{RequestID: "u", ID: "inbox-1", Title: &title}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.UpdateTicket(ctx, board.UpdateTicketInput{RequestID: "v", ID: "inbox-2", Body: &body}); err != nil {
		t.Fatal(err)
	}
	want = []string{"inbox 1 crashes", "inbox 1 safari", "inbox 2 事案", "inbox 2 記事"}
	if got := titleWordRows(t, s); !slices.Equal(got, want) {
		t.Errorf("after a new title and a new body: %v, want %v", got, want)
	}
}

// A file at version 5 had no title-word table: opening it fills the table
// from the tickets stored, and the similar lookup finds them.
func TestMigrateTitleWords(t *testing.T) {
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
	for _, q := range []string{`DROP TRIGGER tickets_titled`, `DROP TRIGGER tickets_retitled`, `DROP TRIGGER tickets_untitled`,
		`DROP TABLE ticket_title_words`, `PRAGMA user_version = 5`} {
		if _, err := s.write.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()

	s, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("opening a version 5 file: %v", err)
	}
	defer s.Close()
	if got := titleWordRows(t, s); len(got) != 10 || !slices.Contains(got, "inbox 3 coffee") {
		t.Errorf("after the migration: %v, want the 10 title words of the 3 tickets", got)
	}
	svc, err = board.NewService(board.Config{Store: s, BaseURL: "http://x"})
	if err != nil {
		t.Fatal(err)
	}
	similar, err := svc.SimilarTickets(ai, board.SimilarInput{Workspace: "inbox", Title: "printer jams"})
	if err != nil || len(similar) != 2 || similar[0].ID != "inbox-2" || similar[1].ID != "inbox-1" {
		t.Errorf("similar to %q: %+v, %v; want inbox-2, inbox-1", "printer jams", similar, err)
	}
}
