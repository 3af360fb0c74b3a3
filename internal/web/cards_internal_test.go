package web

import (
	"testing"
	"time"
)

// A due date reads relative to today (UTC): past days are overdue.
func TestDueStateRelativeToToday(t *testing.T) {
	now := time.Date(2026, 3, 10, 23, 30, 0, 0, time.UTC)
	for _, c := range []struct {
		due, text      string
		overdue, today bool
	}{
		{"2026-03-01", "overdue by 9 days", true, false},
		{"2026-03-09", "overdue since yesterday", true, false},
		{"2026-03-10", "due today", false, true},
		{"2026-03-11", "due tomorrow", false, false},
		{"2026-03-13", "due in 3 days", false, false},
		{"2026-06-01", "due 2026-06-01", false, false},
		{"soon", "due soon", false, false},
	} {
		due := c.due
		got := dueStateAt(&due, now)
		if got.Text != c.text || got.Overdue != c.overdue || got.Today != c.today {
			t.Errorf("%s: %+v, want %q overdue %v today %v", c.due, got, c.text, c.overdue, c.today)
		}
	}
	if got := dueStateAt(nil, now); got != (dueInfo{}) {
		t.Errorf("no due date: %+v", got)
	}
}
