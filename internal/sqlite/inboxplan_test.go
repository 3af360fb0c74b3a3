package sqlite

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// TestInboxPagesWalkAnIndex: every page of an inbox, and the unread
// count, is one walk of one index range, newest first, with no sort and
// no lookup of the table: the rows read are the rows returned, at any
// board size.
func TestInboxPagesWalkAnIndex(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	plan := func(query string, args ...any) string {
		t.Helper()
		rows, err := s.read.QueryContext(t.Context(), `EXPLAIN QUERY PLAN `+query, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		return strings.Join(plan, "; ")
	}
	for _, c := range []struct {
		q     board.InboxQuery
		index string
	}{
		{board.InboxQuery{Recipient: "human:bob", Limit: 20}, "PRIMARY KEY"},
		{board.InboxQuery{Recipient: "human:bob", Before: "x", Limit: 20}, "PRIMARY KEY"},
		{board.InboxQuery{Recipient: "human:bob", UnreadOnly: true, Limit: 20}, "COVERING INDEX inbox_unread"},
		{board.InboxQuery{Recipient: "human:bob", UnreadOnly: true, Before: "x", Limit: 20}, "COVERING INDEX inbox_unread"},
	} {
		query, args := inboxSQL(c.q)
		got := plan(query, args...)
		if !strings.Contains(got, "SEARCH") || !strings.Contains(got, c.index) || strings.Contains(got, "TEMP B-TREE") {
			t.Errorf("%+v: plan %q, want a search of %s without a sort", c.q, got, c.index)
		}
	}
	if got := plan(`SELECT count(*) FROM (SELECT 1 FROM inbox INDEXED BY inbox_unread WHERE recipient = ? AND unread = 1 LIMIT ?)`, "human:bob", 100); !strings.Contains(got, "COVERING INDEX inbox_unread") {
		t.Errorf("count: plan %q, want the unread index alone", got)
	}
}
