package sqlite

import (
	"path/filepath"
	"testing"
	"time"
)

// TestSweepForgetsRegistrationWindows: a registration window past its
// keep-until time is deleted by the OAuth sweep (so the table does not grow by
// one row per window for good), and one still kept is not.
func TestSweepForgetsRegistrationWindows(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	old, kept := now.Add(-2*time.Hour), now.Add(-10*time.Minute)
	for _, w := range []time.Time{old, kept} {
		if ok, err := s.CountOAuthRegistration(t.Context(), w, w.Add(time.Hour), 1); err != nil || !ok {
			t.Fatalf("counting in window %v: ok %v, %v", w, ok, err)
		}
	}
	if _, err := s.sweepOAuth(t.Context(), now); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.CountOAuthRegistration(t.Context(), old, old.Add(time.Hour), 1); err != nil || !ok {
		t.Fatalf("the swept window should count from zero again: ok %v, %v", ok, err)
	}
	if ok, err := s.CountOAuthRegistration(t.Context(), kept, kept.Add(time.Hour), 1); err != nil || ok {
		t.Fatalf("the window still kept must stay full: ok %v, %v", ok, err)
	}
}
