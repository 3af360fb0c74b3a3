package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// PutBatch puts a batch of moved items in one transaction: an import
// syncs the file once per batch instead of once per item (synchronous is
// FULL), which is most of its time on a disk. Each item runs in its own
// savepoint, so an item that fails leaves nothing behind and the items
// before it still commit.
func (s *Store) PutBatch(ctx context.Context, items []board.TransferredItem, now time.Time, stopAtCollision bool) ([]board.PutOutcome, error) {
	var outs []board.PutOutcome
	var failed *board.BatchError
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		outs, failed = outs[:0], nil
		for i, it := range items {
			if _, err := tx.ExecContext(ctx, "SAVEPOINT item"); err != nil {
				return err
			}
			out, err := putItem(ctx, tx, it, now)
			if err != nil {
				if _, rerr := tx.ExecContext(ctx, "ROLLBACK TO item"); rerr != nil {
					return rerr
				}
				failed = &board.BatchError{Index: i, Err: err}
				return nil
			}
			if _, err := tx.ExecContext(ctx, "RELEASE item"); err != nil {
				return err
			}
			outs = append(outs, out)
			if stopAtCollision && out == board.Collision {
				return nil
			}
		}
		return nil
	})
	if err != nil {
		// Nothing of the batch committed.
		return nil, &board.BatchError{Index: 0, Err: err}
	}
	if failed != nil {
		return outs, failed
	}
	return outs, nil
}

func putItem(ctx context.Context, tx *sql.Tx, it board.TransferredItem, now time.Time) (board.PutOutcome, error) {
	switch {
	case it.Ticket != nil:
		return putTicket(ctx, tx, *it.Ticket)
	case it.Note != nil:
		return putNote(ctx, tx, *it.Note)
	case it.Event != nil:
		return putEvent(ctx, tx, *it.Event)
	case it.Request != nil:
		return putRecord(ctx, tx, *it.Request, now)
	case it.Inbox != nil:
		return putInboxItem(ctx, tx, *it.Inbox)
	}
	return 0, errors.New("sqlite: an empty item in a batch")
}
