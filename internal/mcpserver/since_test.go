package mcpserver

import (
	"strings"
	"testing"
	"time"
)

// The standup prompt's since: each documented form, the 31-day bound, and
// refusals that say what it takes.
func TestParseSince(t *testing.T) {
	now := time.Date(2026, 12, 2, 15, 30, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"":                          now.Add(-24 * time.Hour),
		"today":                     time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC),
		" Yesterday ":               time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		"3d":                        now.AddDate(0, 0, -3),
		"36h":                       now.Add(-36 * time.Hour),
		"90m":                       now.Add(-90 * time.Minute),
		"2026-11-30":                time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC),
		"2026-12-02T09:00:00Z":      time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC),
		"2026-12-02T10:00:00+01:00": time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC),
		"400d":                      now.Add(-maxSince),
		"2025-01-01":                now.Add(-maxSince),
	} {
		got, err := parseSince(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("parseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"last week":  "is not a time this prompt reads",
		"-3d":        "is not a time this prompt reads",
		"-2h":        "is not a time this prompt reads",
		"2026-12-03": "is in the future",
	} {
		if _, err := parseSince(in, now); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "yesterday") {
			t.Errorf("parseSince(%q) = %v, want a refusal saying %q and what it takes", in, err, want)
		}
	}
}
