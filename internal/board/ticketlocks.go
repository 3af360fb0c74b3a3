package board

import (
	"context"
	"sync"
)

// ticketLocks lets one write at a time per ticket through this process's
// read-compute-commit loop (docs/architecture.md, "Contention"). Writes to
// one ticket are optimistic: each computes from the version it read and
// commits only if that version is still current. Without the lock, n writers
// in one process read the same version and n-1 of them lose and retry, over
// and over; with it they follow each other and none loses. Writers in
// other processes (other Lambda instances) still race, and the loop backs
// off with jitter for them. Correctness never depends on the lock: the
// store's version check does.
type ticketLocks struct {
	mu    sync.Mutex
	locks map[string]*ticketLock
}

type ticketLock struct {
	ch    chan struct{} // holds one token while a write holds the lock
	users int           // holder and waiters; the entry goes at zero
}

// take waits for the ticket's lock, or for ctx to end.
func (tt *ticketLocks) take(ctx context.Context, id string) (release func(), err error) {
	tt.mu.Lock()
	if tt.locks == nil {
		tt.locks = map[string]*ticketLock{}
	}
	t, ok := tt.locks[id]
	if !ok {
		t = &ticketLock{ch: make(chan struct{}, 1)}
		tt.locks[id] = t
	}
	t.users++
	tt.mu.Unlock()

	leave := func() {
		tt.mu.Lock()
		defer tt.mu.Unlock()
		if t.users--; t.users == 0 {
			delete(tt.locks, id)
		}
	}
	select {
	case t.ch <- struct{}{}:
		return func() { <-t.ch; leave() }, nil
	case <-ctx.Done():
		leave()
		return nil, ctx.Err()
	}
}
