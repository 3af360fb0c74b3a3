package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// TestMigrateCJKPairs: a file at version 4 indexed a run of Japanese text
// as one word, so only the run's beginning was found; opening it rebuilds
// the word index, and any two adjacent characters of the run are found.
func TestMigrateCJKPairs(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := board.NewService(board.Config{Store: s, BaseURL: "http://x", Now: func() time.Time { return time.Date(2026, 11, 30, 13, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	ai := board.WithPrincipal(ctx, board.Principal{Author: "ai:old", Source: board.SourceMCP})
	for i, title := range []string{"ブログ記事の下書きを確認する", "Claude Code から追加: LED 点滅の記事案", "plain latin"} {
		if _, err := svc.CreateTicket(ai, board.CreateTicketInput{RequestID: fmt.Sprint("c", i), Workspace: "inbox", NewTicket: board.NewTicket{Title: title, Body: "両方を比較"}}); err != nil {
			t.Fatal(err)
		}
	}
	// The index as version 4 wrote it: a run is one word.
	old := map[int64][2]string{
		1: {"ブログ記事の下書きを確認する", "両方を比較"},
		2: {"claude code から追加 led 点滅の記事案", "両方を比較"},
		3: {"plain latin", "両方を比較"},
	}
	for n, w := range old {
		rowid := int64(1)<<ftsShift | n // inbox is the first workspace
		if _, err := s.write.ExecContext(ctx, `DELETE FROM ticket_words WHERE rowid = ?`, rowid); err != nil {
			t.Fatal(err)
		}
		if _, err := s.write.ExecContext(ctx, `INSERT INTO ticket_words (rowid, title_words, other_words) VALUES (?, ?, ?)`, rowid, w[0], w[1]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.write.ExecContext(ctx, `PRAGMA user_version = 4`); err != nil {
		t.Fatal(err)
	}
	ids := func(s *Store, query string) []string {
		t.Helper()
		p, err := s.ListTickets(ctx, board.TicketQuery{Workspace: "inbox", Query: query, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tk := range p.Tickets {
			out = append(out, tk.ID)
		}
		return out
	}
	if got := ids(s, "記事"); len(got) != 0 {
		t.Fatalf("before the migration 記事 finds %v: the version 4 index was not set up", got)
	}
	s.Close()

	s, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("opening a version 4 file: %v", err)
	}
	defer s.Close()
	for q, want := range map[string][]string{
		"記事":     {"inbox-2", "inbox-1"},
		"下書き":    {"inbox-1"},
		"確認":     {"inbox-1"},
		"LED点滅":  {"inbox-2"},
		"比較":     {"inbox-3", "inbox-2", "inbox-1"},
		"latin ": {"inbox-3"},
		"記の":     nil,
	} {
		if got := ids(s, q); !slices.Equal(got, want) {
			t.Errorf("%q after the migration: %v, want %v", q, got, want)
		}
	}
	var version int
	s.read.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version)
	if version != schemaVersion {
		t.Errorf("user_version %d, want %d", version, schemaVersion)
	}
}
