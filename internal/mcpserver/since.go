package mcpserver

import (
	"strconv"
	"strings"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// sinceHelp is what the standup prompt says when it cannot read since.
const sinceHelp = "give a date (2026-12-01, from its start in UTC), a time (RFC 3339, e.g. 2026-12-01T09:00:00Z), " +
	"today, yesterday (from the start of that UTC day), a duration back from now (36h, 90m) or a number of days (3d); " +
	"leave it out for the last 24 hours"

// maxSince is how far back a stand-up may look: far enough for a week off,
// and the changes read are bounded anyway (board.RecentTickets).
const maxSince = 31 * 24 * time.Hour

// parseSince reads the standup prompt's since argument: when the period to
// report starts. Days are UTC days, as the board stamps its events in UTC.
// An empty since is the last 24 hours. The error says what it takes.
func parseSince(s string, now time.Time) (time.Time, error) {
	orig := s
	now = now.UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	s = strings.ToLower(strings.TrimSpace(s))
	var t time.Time
	switch {
	case s == "":
		t = now.Add(-24 * time.Hour)
	case s == "today":
		t = today
	case s == "yesterday":
		t = today.AddDate(0, 0, -1)
	case strings.HasSuffix(s, "d"):
		n, err := strconv.Atoi(strings.TrimSuffix(s, "d"))
		if err != nil || n < 0 {
			return time.Time{}, unreadableSince(orig)
		}
		if n > int(maxSince/(24*time.Hour)) {
			n = int(maxSince / (24 * time.Hour))
		}
		t = now.AddDate(0, 0, -n)
	default:
		if d, err := time.Parse(time.DateOnly, s); err == nil {
			t = d
		} else if d, err := time.Parse(time.RFC3339, strings.ToUpper(s)); err == nil {
			t = d.UTC()
		} else if d, err := time.ParseDuration(s); err == nil && d >= 0 {
			t = now.Add(-d)
		} else {
			return time.Time{}, unreadableSince(orig)
		}
	}
	if t.After(now) {
		return time.Time{}, board.Errorf(board.CodeInvalid, "since %q is in the future: nothing has changed since then yet; %s", orig, sinceHelp)
	}
	if t.Before(now.Add(-maxSince)) {
		t = now.Add(-maxSince)
	}
	return t, nil
}

func unreadableSince(s string) error {
	return board.Errorf(board.CodeInvalid, "since %q is not a time this prompt reads: %s", s, sinceHelp)
}
