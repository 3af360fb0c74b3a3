package board

import (
	"context"
	"sync"
)

// ticketTurns lets one write at a time per ticket through this process's
// read-compute-commit loop (docs/architecture.md, "Contention"). Writes to
// one ticket are optimistic: each computes from the version it read and
// commits only if that version is still current. Without turns, n writers
// in one process read the same version and n-1 of them lose and retry, over
// and over; with turns they follow each other and none loses. Writers in
// other processes (other Lambda instances) still race, and the loop backs
// off with jitter for them. Correctness never depends on the turns: the
// store's version check does.
type ticketTurns struct {
	mu    sync.Mutex
	turns map[string]*ticketTurn
}

type ticketTurn struct {
	ch    chan struct{} // holds one token while a write has the turn
	users int           // holder and waiters; the entry goes at zero
}

// take waits for the ticket's turn, or for ctx to end.
func (tt *ticketTurns) take(ctx context.Context, id string) (release func(), err error) {
	tt.mu.Lock()
	if tt.turns == nil {
		tt.turns = map[string]*ticketTurn{}
	}
	t, ok := tt.turns[id]
	if !ok {
		t = &ticketTurn{ch: make(chan struct{}, 1)}
		tt.turns[id] = t
	}
	t.users++
	tt.mu.Unlock()

	leave := func() {
		tt.mu.Lock()
		defer tt.mu.Unlock()
		if t.users--; t.users == 0 {
			delete(tt.turns, id)
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
