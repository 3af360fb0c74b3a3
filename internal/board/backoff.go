package board

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff of the write loop when a commit lost to a writer elsewhere (the
// ticket's version moved): exponential with full jitter, so writers that
// collided do not collide again in step.
const (
	backoffBase = 2 * time.Millisecond
	backoffCap  = 250 * time.Millisecond
)

// backoff waits before attempt n+1 (n from 0), or until ctx ends.
func backoff(ctx context.Context, n int) error {
	limit := min(backoffBase<<min(n, 16), backoffCap)
	t := time.NewTimer(time.Duration(rand.Int64N(int64(limit))) + time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
