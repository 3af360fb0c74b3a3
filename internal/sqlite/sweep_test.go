package sqlite_test

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

// TestSweepExpired: the sweeper deletes every expired request record, in
// batches, and none that is not expired (one expiring a nanosecond after
// the sweep's now included), and the file gives the freed pages back.
func TestSweepExpired(t *testing.T) {
	path := filepath.Join(t.TempDir(), sqlite.FileName)
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	args := []byte(`{"body":"` + strings.Repeat("x", 8000) + `"}`) // records worth sweeping
	claim := func(id string, expires time.Time) ledger.Key {
		t.Helper()
		k := ledger.Key{Principal: "ai:sweep", RequestID: id}
		rec := ledger.NewRecord(k, "import_tickets", args, expires.Add(-24*time.Hour), 24*time.Hour)
		rec.ExpiresAt = expires
		rec.Status, rec.Owner, rec.LeaseUntil = ledger.StatusRunning, "w", expires
		if err := s.ClaimRequest(t.Context(), rec, expires.Add(-time.Hour)); err != nil {
			t.Fatalf("ClaimRequest(%s): %v", id, err)
		}
		return k
	}
	var expired, live []ledger.Key
	for i := range 1200 { // more than two sweeping batches
		expired = append(expired, claim(fmt.Sprintf("old-%d", i), now.Add(-time.Duration(i+1)*time.Minute)))
	}
	expired = append(expired, claim("at-now", now)) // expires_at = now: expired at now
	live = append(live, claim("just-after", now.Add(time.Nanosecond)), claim("tomorrow", now.Add(24*time.Hour)))
	for i := range 20 {
		live = append(live, claim(fmt.Sprintf("new-%d", i), now.Add(time.Duration(i+1)*time.Hour)))
	}

	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	pages := func() (total, free int) {
		t.Helper()
		if err := raw.QueryRow(`PRAGMA page_count`).Scan(&total); err != nil {
			t.Fatal(err)
		}
		if err := raw.QueryRow(`PRAGMA freelist_count`).Scan(&free); err != nil {
			t.Fatal(err)
		}
		return total, free
	}
	before, _ := pages()

	n, err := s.SweepExpired(t.Context(), now)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(expired) {
		t.Errorf("SweepExpired deleted %d records, want the %d expired", n, len(expired))
	}
	var left int
	if err := raw.QueryRow(`SELECT count(*) FROM requests`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != len(live) {
		t.Errorf("%d records left, want the %d unexpired", left, len(live))
	}
	for _, k := range live {
		if _, err := s.GetRequest(t.Context(), k, now); err != nil {
			t.Errorf("unexpired record %s: %v", k.RequestID, err)
		}
	}
	for _, k := range expired[:3] {
		if _, err := s.GetRequest(t.Context(), k, now.Add(-48*time.Hour)); !errors.Is(err, board.ErrNotFound) {
			t.Errorf("expired record %s is still stored (read as of before it expired: %v)", k.RequestID, err)
		}
	}
	after, free := pages()
	if free > 8 {
		t.Errorf("%d free pages left in the file after the sweep, want them given back", free)
	}
	if after > before/2 {
		t.Errorf("file is %d pages after sweeping %d of %d records, was %d: the space was not freed", after, n, n+left, before)
	}
	t.Logf("swept %d records: %d pages → %d", n, before, after)

	// Nothing left to sweep: a second sweep deletes nothing.
	if n, err := s.SweepExpired(t.Context(), now); err != nil || n != 0 {
		t.Errorf("second sweep: %d, %v; want 0", n, err)
	}
}
