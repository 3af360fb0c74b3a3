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
// all, and then none of them was written.

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
	drain:
		for len(batch) < maxBatch {
			select {
			case j := <-s.jobs:
				batch = append(batch, j)
			default:
				break drain
			}
		}
		s.runBatch(batch)
	}
}

func (s *Store) runBatch(batch []job) {
	errs := make([]error, len(batch))
	finish := func(err error) {
		for i, j := range batch {
			if err != nil && errs[i] == nil {
				errs[i] = err
			}
			j.done <- errs[i]
		}
	}
	// The batch does not belong to any one caller, so no caller's context
	// may interrupt it: an interrupted statement can roll back the whole
	// transaction, other callers' writes with it.
	bg := context.Background()
	tx, err := s.write.BeginTx(bg, nil)
	if err != nil {
		finish(err)
		return
	}
	for i, j := range batch {
		if err := j.ctx.Err(); err != nil {
			errs[i] = err // cancelled before its work started: nothing written
			continue
		}
		if err := s.runJob(tx, j); err != nil {
			errs[i] = err
			if _, rerr := tx.ExecContext(bg, "ROLLBACK TO job"); rerr != nil {
				tx.Rollback()
				finish(fmt.Errorf("undoing a failed write: %w", rerr))
				return
			}
		}
		if _, err := tx.ExecContext(bg, "RELEASE job"); err != nil {
			tx.Rollback()
			finish(err)
			return
		}
	}
	finish(tx.Commit())
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
