package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// TestMigrateVersion0: a file written by the first release (schema version
// 0: counts counted on read, no tag, owner, due or text index, search_text,
// no auto_vacuum) opens at the current version with every index filled from
// the tickets it holds, and the indexes keep up with writes afterwards.
func TestMigrateVersion0(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	old, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	// The first release's schema, frozen as it shipped: the live schema
	// constant may change, a file written by that release cannot.
	v0, err := os.ReadFile(filepath.Join("testdata", "schema_v0.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Exec(string(v0)); err != nil {
		t.Fatal(err)
	}
	for _, w := range board.DefaultWorkspaces() {
		if _, err := old.Exec(`INSERT INTO workspaces (slug, name, ai_policy) VALUES (?, ?, ?)`, w.Slug, w.Name, string(w.AIPolicy)); err != nil {
			t.Fatal(err)
		}
	}
	// 30 tickets in inbox as version 0 wrote them, 2 in reference.
	at := "2026-11-30T12:00:00.000000000Z"
	insert := func(ws string, n int, status, owner, due, tags, title, body string) {
		t.Helper()
		id := fmt.Sprintf("%s-%d", ws, n)
		if _, err := old.Exec(`INSERT INTO tickets (id, workspace, number, title, body, search_text, status, priority, owner, due, tags, links,
			created_by, created_at, updated_at, url, version) VALUES (?, ?, ?, ?, ?, lower(? || char(10) || ?), ?, 'normal', NULLIF(?, ''), NULLIF(?, ''), ?, '[]',
			'ai:old', ?, ?, 'http://x/tickets/' || ?, 1)`, id, ws, n, title, body, title, body, status, owner, due, tags, at, at, id); err != nil {
			t.Fatal(err)
		}
		if _, err := old.Exec(`UPDATE workspaces SET last_number = ? WHERE slug = ?`, n, ws); err != nil {
			t.Fatal(err)
		}
	}
	for n := 1; n <= 30; n++ {
		status, owner, due, tags := "candidate", "", "", `["area"]`
		switch {
		case n%10 == 0:
			status, due = "done", "2026-12-01"
		case n%7 == 0:
			status, owner = "waiting_ai", "ai:seven"
		case n == 3:
			due, tags = "2026-12-02", `["rare","area"]`
		}
		body := "plain body"
		if n == 11 {
			body = "the needle hides here"
		}
		insert("inbox", n, status, owner, due, tags, fmt.Sprintf("Old ticket %d", n), body)
	}
	insert("reference", 1, "hold", "", "", "[]", "Ref one", "body")
	insert("reference", 2, "hold", "", "", "[]", "Ref two", "body")
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("opening a version 0 file: %v", err)
	}
	defer s.Close()
	var version, vacuum int
	s.read.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version)
	s.read.QueryRowContext(ctx, `PRAGMA auto_vacuum`).Scan(&vacuum)
	if version != schemaVersion || vacuum != 2 {
		t.Errorf("after migration: user_version %d, auto_vacuum %d; want %d, 2 (incremental)", version, vacuum, schemaVersion)
	}
	var searchText int
	s.read.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('tickets') WHERE name = 'search_text'`).Scan(&searchText)
	if searchText != 0 {
		t.Error("search_text is still a column of tickets")
	}

	checkCounts := func(what string, want map[board.Status]int) {
		t.Helper()
		w, err := s.GetWorkspace(ctx, "inbox")
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range board.Statuses {
			if w.Counts[st] != want[st] {
				t.Errorf("%s: inbox counts %v, want %v", what, w.Counts, want)
				return
			}
		}
	}
	checkCounts("after migration", map[board.Status]int{board.StatusCandidate: 23, board.StatusDone: 3, board.StatusWaitingAI: 4})
	ref, _ := s.GetWorkspace(ctx, "reference")
	if ref.Counts[board.StatusHold] != 2 {
		t.Errorf("reference counts %v, want hold: 2", ref.Counts)
	}
	ids := func(q board.TicketQuery) []string {
		t.Helper()
		q.Workspace, q.Limit = "inbox", 50
		p, err := s.ListTickets(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tk := range p.Tickets {
			out = append(out, tk.ID)
		}
		return out
	}
	for _, c := range []struct {
		q    board.TicketQuery
		want []string
	}{
		{board.TicketQuery{Tag: "rare"}, []string{"inbox-3"}},
		{board.TicketQuery{Owner: "ai:seven"}, []string{"inbox-28", "inbox-21", "inbox-14", "inbox-7"}},
		{board.TicketQuery{Query: "NEEDLE"}, []string{"inbox-11"}},
		{board.TicketQuery{Query: "ticket 1"}, []string{"inbox-1"}}, // words, no longer substrings
		{board.TicketQuery{Query: "OLD ticket 11 "}, []string{"inbox-11"}},
	} {
		if got := ids(c.q); !slices.Equal(got, c.want) {
			t.Errorf("ListTickets(%+v) after migration: %v, want %v", c.q, got, c.want)
		}
	}
	sum, err := s.ReadSummary(ctx, board.SummaryQuery{Workspace: "inbox", Waiting: 20, DueBy: "2026-12-07", Due: 20, Events: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.DueSoon) != 1 || sum.DueSoon[0].ID != "inbox-3" {
		t.Errorf("due_soon after migration: %v, want inbox-3 only (the done ones are not open)", sum.DueSoon)
	}

	// Writes after the migration keep every index in step.
	svc, err := board.NewService(board.Config{Store: s, BaseURL: "http://x", Now: func() time.Time { return time.Date(2026, 11, 30, 13, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	ai := board.WithPrincipal(ctx, board.Principal{Author: "ai:new", Source: board.SourceMCP})
	res, err := svc.CreateTicket(ai, board.CreateTicketInput{RequestID: "new", Workspace: "inbox", NewTicket: board.NewTicket{Title: "New needle", Tags: []string{"rare"}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ticket.ID != "inbox-31" {
		t.Errorf("new ticket is %s, want inbox-31: numbering goes on", res.Ticket.ID)
	}
	if _, err := svc.MoveTicket(ai, board.MoveTicketInput{RequestID: "mv", ID: "inbox-1", Status: board.StatusDoing}); err != nil {
		t.Fatal(err)
	}
	checkCounts("after a create and a move", map[board.Status]int{board.StatusCandidate: 23, board.StatusDoing: 1, board.StatusDone: 3, board.StatusWaitingAI: 4})
	if got := ids(board.TicketQuery{Tag: "rare"}); !slices.Equal(got, []string{"inbox-31", "inbox-3"}) {
		t.Errorf("tag rare after a create: %v", got)
	}
	if got := ids(board.TicketQuery{Query: "needle"}); !slices.Equal(got, []string{"inbox-31", "inbox-11"}) {
		t.Errorf("query needle after a create: %v", got)
	}

	// Opening again migrates nothing.
	s.Close()
	again, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if w, _ := again.GetWorkspace(ctx, "inbox"); w.Counts[board.StatusDoing] != 1 {
		t.Errorf("counts after reopening: %v", w.Counts)
	}
}

// TestVersion0IsFrozen: a fresh file is made as version 0 and then
// migrated, so version 0 must stay what the first release wrote; a change
// belongs in a new migration step.
func TestVersion0IsFrozen(t *testing.T) {
	v0, err := os.ReadFile(filepath.Join("testdata", "schema_v0.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(v0)) != strings.TrimSpace(schema) {
		t.Fatal("the schema constant differs from testdata/schema_v0.sql, the first release's schema: add a migration step instead of changing version 0")
	}
}
