package board

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// newestChanges folds the feed into one entry per ticket, in the order of
// their last change, counts each ticket's changes, and skips a workspace's
// own events.
func TestNewestChanges(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	ev := func(id, ticket string, min int) Event { return Event{ID: id, TicketID: ticket, At: at(min)} }
	feed := []Event{ev("e5", "inbox-1", 50), ev("r2", "reference-1", 45), ev("e4", "", 40), ev("e3", "inbox-2", 30),
		ev("e2", "inbox-1", 20), ev("e1", "inbox-2", 10), ev("r1", "reference-1", 5)}
	var ids []string
	for _, c := range newestChanges(feed) {
		ids = append(ids, fmt.Sprintf("%s×%d", c.LastChange.TicketID, c.Changes))
	}
	if want := []string{"inbox-1×2", "reference-1×2", "inbox-2×2"}; !slices.Equal(ids, want) {
		t.Errorf("every change: %v, want %v", ids, want)
	}
}

// inParallel runs every index once, and after a failure returns it and
// starts no more.
func TestInParallel(t *testing.T) {
	var ran [100]atomic.Int32
	if err := inParallel(context.Background(), len(ran), func(_ context.Context, i int) error { ran[i].Add(1); return nil }); err != nil {
		t.Fatal(err)
	}
	for i := range ran {
		if n := ran[i].Load(); n != 1 {
			t.Fatalf("index %d ran %d times", i, n)
		}
	}
	boom := errors.New("boom")
	var started atomic.Int32
	err := inParallel(context.Background(), 1000, func(ctx context.Context, i int) error {
		started.Add(1)
		if i == 0 {
			return boom
		}
		<-ctx.Done() // the others wait for the failure to stop them
		return nil
	})
	if !errors.Is(err, boom) || started.Load() > recentReaders {
		t.Errorf("err %v after %d started; want boom after at most %d", err, started.Load(), recentReaders)
	}
}
