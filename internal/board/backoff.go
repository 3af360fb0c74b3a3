package board

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff is exponential backoff with full jitter between attempts of a
// write that lost to a writer elsewhere: writers that collided do not
// collide again in step. It is written once here; each loop picks the
// base and cap that fit its round trip.
type Backoff struct {
	Base time.Duration // the first attempt's wait is below Base
	Cap  time.Duration // no wait is above Cap
}

// writeBackoff is the use cases' write loop's (a ticket's version moved
// under it): in-process or SQLite round trips, milliseconds.
var writeBackoff = Backoff{Base: 2 * time.Millisecond, Cap: 250 * time.Millisecond}

// Wait waits before attempt n+1 (n from 0), or until ctx ends: a random
// time below min(Base·2ⁿ, Cap), plus a millisecond so it is never zero.
func (b Backoff) Wait(ctx context.Context, n int) error {
	limit := min(b.Base<<min(n, 16), b.Cap)
	t := time.NewTimer(time.Duration(rand.Int64N(int64(limit))) + time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// backoff waits with writeBackoff.
func backoff(ctx context.Context, n int) error { return writeBackoff.Wait(ctx, n) }
