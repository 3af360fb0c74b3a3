package board

import (
	"context"
	"errors"
	"time"
)

// taskStartWait bounds how long a duplicate of an import waits for the
// task that the first call is still creating (claim first, then the task
// with its staged rows: two writes, see imports.go). Within it the
// duplicate answers the task like any later retry; past it, "in progress"
// (409 over REST) as before.
const taskStartWait = 5 * time.Second

// awaitStartedTask reads task id, waiting up to taskStartWait while it does
// not exist yet because the call that claimed its key is creating it.
func (s *Service) awaitStartedTask(ctx context.Context, id string) (Task, error) {
	deadline := time.Now().Add(taskStartWait) // real time: a wait, not the board's clock
	for n := 0; ; n++ {
		t, err := s.store.GetTask(ctx, id, s.now())
		if !errors.Is(err, ErrNotFound) || time.Now().After(deadline) {
			return t, err
		}
		if err := backoff(ctx, n); err != nil {
			return Task{}, err
		}
	}
}
