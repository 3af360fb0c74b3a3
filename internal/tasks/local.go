package tasks

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Service is what the runner needs of board.Service.
type Service interface {
	RunImport(ctx context.Context, taskID string, maxRows int) (board.Task, error)
	FailTask(ctx context.Context, taskID, cause string) (board.Task, error)
	UnfinishedTasks(ctx context.Context) ([]board.Task, error)
}

// Local runs tasks in goroutines of this process. It implements
// board.TaskRunner.
type Local struct {
	svc Service
	log *slog.Logger
	// retryMax caps the wait between attempts after a transient error.
	retryMax time.Duration

	root    context.Context
	cancel  context.CancelFunc
	mu      sync.Mutex
	running map[string]context.CancelFunc
	wg      sync.WaitGroup
}

var _ board.TaskRunner = (*Local)(nil)

// NewLocal returns a runner; Close stops it.
func NewLocal(svc Service, log *slog.Logger) *Local {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	root, cancel := context.WithCancel(context.Background())
	return &Local{svc: svc, log: log, retryMax: 5 * time.Second, root: root, cancel: cancel, running: map[string]context.CancelFunc{}}
}

// Reference: a local run has no execution to name.
func (r *Local) Reference(board.Task) string { return "" }

// Start runs t in a goroutine unless it runs already.
func (r *Local) Start(_ context.Context, t board.Task) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.root.Err() != nil {
		return errors.New("the task runner is stopped")
	}
	if _, ok := r.running[t.ID]; ok {
		return nil
	}
	ctx, cancel := context.WithCancel(r.root)
	r.running[t.ID] = cancel
	r.wg.Go(func() {
		defer func() {
			r.mu.Lock()
			delete(r.running, t.ID)
			r.mu.Unlock()
			cancel()
		}()
		r.run(ctx, t.ID)
	})
	return nil
}

// Stop ends the goroutine of t (the task is already marked cancelled; the
// goroutine would stop at its next chunk anyway).
func (r *Local) Stop(_ context.Context, t board.Task) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cancel, ok := r.running[t.ID]; ok {
		cancel()
	}
	return nil
}

// Resume starts every unfinished task: after a restart, the imports that
// were running go on from their stored cursor.
func (r *Local) Resume(ctx context.Context) (int, error) {
	tasks, err := r.svc.UnfinishedTasks(ctx)
	if err != nil {
		return 0, err
	}
	for _, t := range tasks {
		if err := r.Start(ctx, t); err != nil {
			return 0, err
		}
	}
	return len(tasks), nil
}

// Close stops every run and waits for them: a chunk in flight commits or
// not as a whole, and the next start resumes from the stored cursor.
func (r *Local) Close() {
	r.cancel()
	r.wg.Wait()
}

// Running reports how many tasks run now.
func (r *Local) Running() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.running)
}

// run drives the chunk worker until the task ends. A transient error
// (storage) is retried with backoff; a permanent one fails the task.
func (r *Local) run(ctx context.Context, id string) {
	wait := 100 * time.Millisecond
	for ctx.Err() == nil {
		t, err := r.svc.RunImport(ctx, id, 0)
		if err == nil {
			if t.Status == board.TaskWorking {
				continue // stopped early (a row budget): go on
			}
			return
		}
		if ctx.Err() != nil {
			return
		}
		if !board.RetryableTaskError(err) {
			r.log.Warn("a task failed", "task", id, "err", err)
			if _, ferr := r.svc.FailTask(ctx, id, err.Error()); ferr != nil {
				r.log.Error("marking a task failed failed", "task", id, "err", ferr)
			}
			return
		}
		r.log.Warn("a task's chunk failed; retrying", "task", id, "err", err, "in", wait)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(wait*2, r.retryMax)
	}
}
