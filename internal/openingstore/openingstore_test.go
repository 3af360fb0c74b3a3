package openingstore

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// A call made while the store opens waits for it, then goes through.
func TestWaitsForTheOpen(t *testing.T) {
	release := make(chan struct{})
	s := InBackground(context.Background(), func(ctx context.Context) (Backend, error) {
		<-release
		return sqlite.Open(ctx, t.TempDir()+"/ledger.db")
	}, slog.New(slog.DiscardHandler))
	t.Cleanup(func() { s.Close() })

	got := make(chan int, 1)
	go func() {
		ws, err := s.ListWorkspaces(context.Background())
		if err != nil {
			t.Error(err)
		}
		got <- len(ws)
	}()
	// Still opening: a caller that gives up gets its own context's error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.GetWorkspace(ctx, "inbox"); !errors.Is(err, context.Canceled) {
		t.Fatalf("call during opening with a cancelled context: %v", err)
	}
	close(release)
	if n := <-got; n != 3 {
		t.Fatalf("waiting call saw %d workspaces, want the 3 seeded", n)
	}
}

// flakyOpener fails its first n attempts, then opens a store.
type flakyOpener struct {
	t        *testing.T
	mu       sync.Mutex
	failures int
	attempts int
}

func (o *flakyOpener) open(ctx context.Context) (Backend, error) {
	o.mu.Lock()
	o.attempts++
	fail := o.attempts <= o.failures
	o.mu.Unlock()
	if fail {
		return nil, errors.New("table ticket-ledger not found")
	}
	return sqlite.Open(ctx, o.t.TempDir()+"/ledger.db")
}

func (o *flakyOpener) count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.attempts
}

// A failed open is tried again by a later call once its backoff has passed
// (not before: a call in the meantime fails at once without another
// attempt), and the instance recovers instead of failing for its life.
func TestRetriesAfterAFailedOpen(t *testing.T) {
	opener := &flakyOpener{t: t, failures: 2}
	clock := testbackends.NewClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	s := &Store{open: opener.open, base: context.Background(), log: slog.New(slog.DiscardHandler), now: clock.Now}
	t.Cleanup(func() { s.Close() })

	for attempt := 1; attempt <= 2; attempt++ {
		_, err := s.GetWorkspace(context.Background(), "inbox") // starts attempt n and waits for it
		if err == nil || !strings.Contains(err.Error(), "table ticket-ledger not found") {
			t.Fatalf("call %d while the table is missing: %v", attempt, err)
		}
		if _, err := s.GetWorkspace(context.Background(), "inbox"); err == nil || opener.count() != attempt {
			t.Fatalf("a call inside the backoff: err %v after %d attempts, want the last failure and no new attempt (%d)", err, opener.count(), attempt)
		}
		clock.Add(MaxBackoff) // past any backoff
	}
	w, err := s.GetWorkspace(context.Background(), "inbox")
	if err != nil || w.Slug != "inbox" || opener.count() != 3 {
		t.Fatalf("after the backoff: %+v %v after %d attempts, want the store open at the third", w, err, opener.count())
	}
	if _, err := s.ListWorkspaces(context.Background()); err != nil || opener.count() != 3 {
		t.Fatalf("once open: %v after %d attempts, want no more attempts", err, opener.count())
	}
	if err := s.Ping(context.Background()); err != nil {
		t.Fatalf("Ping of the open store: %v", err)
	}
}

// The backoff grows with each failure up to its cap.
func TestBacksOffMoreEachTime(t *testing.T) {
	opener := &flakyOpener{t: t, failures: 100}
	clock := testbackends.NewClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	s := &Store{open: opener.open, base: context.Background(), log: slog.New(slog.DiscardHandler), now: clock.Now}
	var waits []time.Duration
	for range 8 {
		s.GetWorkspace(context.Background(), "inbox")
		s.mu.Lock()
		waits = append(waits, s.retryAt.Sub(clock.Now()))
		s.mu.Unlock()
		clock.Add(MaxBackoff)
	}
	for i, w := range waits {
		full := min(backoffBase<<i, MaxBackoff)
		if w < full/2 || w > full {
			t.Errorf("wait after failure %d: %v, want between %v and %v", i+1, w, full/2, full)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close after failed opens: %v", err)
	}
}
