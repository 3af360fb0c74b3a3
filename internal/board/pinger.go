package board

import "context"

// Pinger is the part of Store that tells whether the backend answers, for
// health checks: one small read, nothing written.
type Pinger interface {
	Ping(ctx context.Context) error
}
