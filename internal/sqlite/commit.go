package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Group commit. With synchronous=FULL every COMMIT waits for a disk sync,
// and one writer connection would pay one sync per write in turn. Instead a
// committer goroutine takes every write waiting at that moment, runs each in
// its own savepoint of one transaction, and commits them with one sync. A
// write whose savepoint fails rolls back alone; a failed COMMIT fails them
// all, and then none of them was written. It does not wait for more writes
// before committing: a wait makes batches larger under heavy load but holds
// every caller of a light one, and it was measured not to pay
// (docs/benchmarks.md, "A commit delay, tried and not kept").
//
// No write of a batch is answered before its COMMIT returned, and when the
// COMMIT failed every write of the batch is answered with that failure,
// whatever it computed: what a write saw inside the batch may be a sibling's
// uncommitted work (a duplicate finds its twin's request record and would
// answer "replayed"; a note finds the ticket version a sibling set), and
// "done" or "replayed" is said only of a committed record
// (docs/architecture.md, "The ledger's rules").

// maxBatch bounds how many writes share one commit (and one wait).
const maxBatch = 64

var errClosed = errors.New("store is closed")

// job is one write's work waiting for a batch.
type job struct {
	ctx  context.Context
	fn   func(ctx context.Context, tx *sql.Tx) error
	done chan error
}

// inTx runs fn atomically: its changes commit, or none of them do. It honours
// cancellation until fn starts; from then on fn runs to the end and commits
// with its batch, so a cancelled caller never reports "nothing written" for
// work that committed.
// fn gets a context that carries the caller's values but not its
// cancellation, for the same reason the batch has none.
func (s *Store) inTx(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	j := job{ctx: ctx, fn: fn, done: make(chan error, 1)}
	select {
	case s.jobs <- j:
	case <-ctx.Done():
		return ctx.Err()
	case <-s.stop:
		return errClosed
	}
	return <-j.done // once handed over, the batch decides; wait for it
}

// hooks let a test place a batch exactly; production leaves them nil.
type hooks struct {
	// collect says, with n jobs in the batch, whether to wait for another
	// before running it (nil: take what is waiting at that moment).
	collect func(n int) bool
	// beforeCommit runs after every job of the batch ran, before COMMIT.
	beforeCommit func()
	// committed sees each COMMIT's outcome.
	committed func(err error)
	// mirrorRead runs when a build of the similar-tickets mirror has read
	// its workspace, before it keeps what it read (similarmirror.go).
	mirrorRead func()
	// mirrorWait runs when a lookup finds its workspace's build under way,
	// before it waits for it.
	mirrorWait func()
}

func (s *Store) committer() {
	defer close(s.done)
	for {
		var batch []job
		select {
		case j := <-s.jobs:
			batch = append(batch, j)
		case <-s.stop:
			return
		}
		h := s.hooks.Load()
	drain:
		for len(batch) < maxBatch {
			if h != nil && h.collect != nil && h.collect(len(batch)) {
				select {
				case j := <-s.jobs:
					batch = append(batch, j)
					continue
				case <-s.stop:
					break drain
				}
			}
			select {
			case j := <-s.jobs:
				batch = append(batch, j)
			default:
				break drain
			}
		}
		s.runBatch(batch, h)
	}
}

// batchFailed is how a write learns that the batch it was in did not
// commit: nothing it did was written.
func batchFailed(err error) error {
	return fmt.Errorf("sqlite: the writes batched with this one did not commit, nothing of it was written: %w", err)
}

func (s *Store) runBatch(batch []job, h *hooks) {
	errs := make([]error, len(batch))
	started := make([]bool, len(batch))
	// answer sends every job its answer. When the batch did not commit,
	// every job that started (or never got to) is answered with that
	// failure, replacing whatever it computed; a job cancelled before its
	// work keeps its cancellation.
	answer := func(failed error) {
		for i, j := range batch {
			if failed != nil && (started[i] || errs[i] == nil) {
				errs[i] = batchFailed(failed)
			}
			j.done <- errs[i]
		}
	}
	// The batch does not belong to any one caller, so no caller's context
	// may interrupt it: an interrupted statement can roll back the whole
	// transaction, other callers' writes with it.
	bg := context.Background()
	release, err := s.enter()
	if err != nil {
		answer(err)
		return
	}
	defer release()
	tx, err := s.write.BeginTx(bg, nil)
	if err != nil {
		answer(s.busyError(err))
		return
	}
	for i, j := range batch {
		if err := j.ctx.Err(); err != nil {
			errs[i] = err // cancelled before its work started: nothing written
			continue
		}
		started[i] = true
		if err := s.runJob(tx, j); err != nil {
			errs[i] = err
			if _, rerr := tx.ExecContext(bg, "ROLLBACK TO job"); rerr != nil {
				tx.Rollback()
				answer(fmt.Errorf("undoing a failed write: %w", rerr))
				return
			}
		}
		if _, err := tx.ExecContext(bg, "RELEASE job"); err != nil {
			tx.Rollback()
			answer(err)
			return
		}
	}
	mirrored := s.readMirrorChanges(tx)
	if h != nil && h.beforeCommit != nil {
		h.beforeCommit()
	}
	err = tx.Commit()
	s.mirrorCommitted(mirrored, err)
	if h != nil && h.committed != nil {
		h.committed(err)
	}
	answer(err)
}

// runJob runs one write inside a savepoint; a panic in it fails the write,
// not the committer.
func (s *Store) runJob(tx *sql.Tx, j job) (err error) {
	if _, err := tx.ExecContext(context.Background(), "SAVEPOINT job"); err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("write failed: %v", r)
		}
	}()
	return j.fn(context.WithoutCancel(j.ctx), tx)
}
