package dynamo

import (
	"context"
	"sync"
)

// keyLocks admits one write at a time per key (a workspace's counter, a
// ticket, a request key) within this process. Correctness never depends on
// it: every write is conditional in DynamoDB. It saves the round trips that
// writes racing inside one process would waste on conflicts with each other
// (a Lambda instance serves one call at a time, so there it costs nothing),
// and it keeps such races away from test endpoints that do not isolate
// concurrent transactions (moto applies a transaction and undoes it by
// restoring a snapshot of the whole table).
type keyLocks struct {
	mu    sync.Mutex
	locks map[string]*keyLock
}

type keyLock struct {
	ch    chan struct{} // holds one token while locked
	users int           // holders and waiters; the entry goes at zero
}

// lock waits for key, or for ctx to end.
func (k *keyLocks) lock(ctx context.Context, key string) (unlock func(), err error) {
	k.mu.Lock()
	if k.locks == nil {
		k.locks = map[string]*keyLock{}
	}
	l, ok := k.locks[key]
	if !ok {
		l = &keyLock{ch: make(chan struct{}, 1)}
		k.locks[key] = l
	}
	l.users++
	k.mu.Unlock()

	release := func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		if l.users--; l.users == 0 {
			delete(k.locks, key)
		}
	}
	select {
	case l.ch <- struct{}{}:
		return func() { <-l.ch; release() }, nil
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
}
