package dynamo

import (
	"context"
	"sync"
)

// serializedEndpoint is how SerializeWrites isolates requests on an endpoint
// that does not isolate them itself (moto applies a transaction item by
// item and undoes a refused one by restoring a snapshot of the whole table):
// one write at a time, and no read while a write is in flight, so no
// request sees half a transaction or has its write undone by another's
// restore. It is process-wide, not per store: separate store instances of
// one process (the tests' stand-ins for separate Lambda instances) reach the
// same endpoint and need the same lock. Logic never depends on it; it only
// makes such an endpoint behave as DynamoDB does.
var serializedEndpoint sync.RWMutex

// exclusiveWrite waits until this process may send a write alone when
// SerializeWrites is on. It is taken around single requests only, after
// any per-key lock, so it never waits on itself.
func (s *Store) exclusiveWrite(ctx context.Context) (func(), error) {
	return s.serialized(ctx, serializedEndpoint.Lock, serializedEndpoint.Unlock)
}

// sharedRead waits until no write of this process is in flight when
// SerializeWrites is on; reads run alongside each other.
func (s *Store) sharedRead(ctx context.Context) (func(), error) {
	return s.serialized(ctx, serializedEndpoint.RLock, serializedEndpoint.RUnlock)
}

func (s *Store) serialized(ctx context.Context, lock, unlock func()) (func(), error) {
	if !s.serialize {
		return func() {}, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lock()
	return unlock, nil
}
