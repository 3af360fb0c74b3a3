package sqlite

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestFeedQueriesWalkAnIndex: each filter the feed asks SQLite to answer is
// a walk of its index in append order, newest first, with no sort of the
// matches: the rows read are the rows returned, at any board size.
func TestFeedQueriesWalkAnIndex(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	cases := []struct {
		where []string
		args  []any
		index string
	}{
		{[]string{`workspace = ?`}, []any{"inbox"}, "events_by_workspace"},
		{[]string{`workspace = ?`, feedAuthor + ` = ?`}, []any{"inbox", "ai:claude"}, "events_by_author"},
		{[]string{`workspace = ?`, feedType + ` = ?`}, []any{"inbox", "ticket.moved"}, "events_by_type"},
		{[]string{`workspace = ?`, feedAuthor + ` = ?`, `seq < ?`}, []any{"inbox", "ai:claude", 7}, "events_by_author"},
		{[]string{`seq < ?`}, []any{7}, "INTEGER PRIMARY KEY"},
	}
	for _, c := range cases {
		rows, err := s.read.QueryContext(t.Context(), `EXPLAIN QUERY PLAN `+feedSQL(c.where), append(c.args, 10)...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		got := strings.Join(plan, "; ")
		if !strings.Contains(got, c.index) || strings.Contains(got, "TEMP B-TREE") || strings.Contains(got, "SCAN events") {
			t.Errorf("%v: plan %q, want a walk of %s without a sort", c.where, got, c.index)
		}
	}
}
