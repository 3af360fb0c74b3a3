package sqlite

import (
	"context"
	"database/sql"
	"log/slog"
	"time"
)

// Expired request records answer nothing (every read and write checks
// expires_at), but they stay in the file until deleted: at 100 000 tickets
// they were more than half of it. The sweeper deletes them in batches, each
// batch one short write in the group-commit queue, so writes keep flowing
// between batches; then it gives the freed pages back to the file system
// (the file is in auto_vacuum INCREMENTAL mode, see migrate.go).

// sweepBatch is how many records one sweeping write deletes.
const sweepBatch = 500

// SweepExpired deletes every request record expired at now (expires_at at
// or before it) and returns how many it deleted; then it frees the pages
// they held. It never touches an unexpired record.
func (s *Store) SweepExpired(ctx context.Context, now time.Time) (int, error) {
	total := 0
	for {
		var n int64
		err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
			res, err := tx.ExecContext(ctx, `DELETE FROM requests WHERE rowid IN
				(SELECT rowid FROM requests WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)`, formatTime(now), sweepBatch)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		if err != nil {
			return total, err
		}
		total += int(n)
		if n < sweepBatch {
			break
		}
	}
	if total > 0 {
		if err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `PRAGMA incremental_vacuum`)
			return err
		}); err != nil {
			return total, err
		}
	}
	return total, nil
}

// RunSweeper sweeps expired records every interval until ctx ends or the
// store closes, judging expiry by now. Failures are logged and retried at
// the next interval: a record that outlives its expiry only takes space.
func (s *Store) RunSweeper(ctx context.Context, every time.Duration, now func() time.Time, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.stop:
			return
		case <-t.C:
		}
		if n, err := s.sweepOAuth(ctx, now()); err != nil {
			log.Warn("sqlite: sweeping expired OAuth codes, tokens and grants failed; retrying at the next interval", "err", err)
		} else if n > 0 {
			log.Info("sqlite: swept expired OAuth codes, tokens and grants", "deleted", n)
		}
		if err := s.sweepSignInSlots(ctx, now()); err != nil {
			log.Warn("sqlite: sweeping old sign-in attempts failed; retrying at the next interval", "err", err)
		}
		n, err := s.SweepExpired(ctx, now())
		switch {
		case err != nil:
			log.Warn("sqlite: sweeping expired request records failed; retrying at the next interval", "err", err, "deleted", n)
		case n > 0:
			log.Info("sqlite: swept expired request records", "deleted", n)
		}
	}
}
