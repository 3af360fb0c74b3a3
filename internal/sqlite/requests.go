package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

const requestColumns = `principal, request_id, tool, fingerprint, args, status, result, owner, lease_until, created_at, expires_at`

func scanRequest(row scanner) (ledger.Record, error) {
	var r ledger.Record
	var args string
	var result, owner, lease sql.NullString
	var created, expires string
	err := row.Scan(&r.Key.Principal, &r.Key.RequestID, &r.Tool, &r.Fingerprint, &args, &r.Status, &result, &owner, &lease, &created, &expires)
	if err != nil {
		return r, err
	}
	r.Args = []byte(args)
	if result.Valid {
		r.Result = []byte(result.String)
	}
	r.Owner = owner.String
	if lease.Valid {
		if r.LeaseUntil, err = parseTime(lease.String); err != nil {
			return r, err
		}
	}
	if r.CreatedAt, err = parseTime(created); err != nil {
		return r, err
	}
	r.ExpiresAt, err = parseTime(expires)
	return r, err
}

// getRequest returns the unexpired record, or board.ErrNotFound.
func getRequest(ctx context.Context, q querier, key ledger.Key, now time.Time) (ledger.Record, error) {
	r, err := scanRequest(q.QueryRowContext(ctx, `SELECT `+requestColumns+` FROM requests
		WHERE principal = ? AND request_id = ? AND expires_at > ?`, key.Principal, key.RequestID, formatTime(now)))
	if errors.Is(err, sql.ErrNoRows) {
		return r, board.ErrNotFound
	}
	return r, err
}

// claimKey fails with *ledger.ExistsError when an unexpired record holds the
// key, and clears an expired one so the write may reuse the key. It reads
// the record whatever its expiry and judges that here, so the usual case
// (no record) costs one lookup and no delete.
func claimKey(ctx context.Context, tx *sql.Tx, key ledger.Key, now time.Time) error {
	rec, err := scanRequest(tx.QueryRowContext(ctx, `SELECT `+requestColumns+` FROM requests
		WHERE principal = ? AND request_id = ?`, key.Principal, key.RequestID))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return err
	case !rec.Expired(now):
		return &ledger.ExistsError{Record: rec}
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM requests WHERE principal = ? AND request_id = ?`, key.Principal, key.RequestID)
	return err
}

func putRequest(ctx context.Context, tx *sql.Tx, r ledger.Record) error {
	var lease sql.NullString
	if !r.LeaseUntil.IsZero() {
		lease = sql.NullString{String: formatTime(r.LeaseUntil), Valid: true}
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO requests (`+requestColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.Key.Principal, r.Key.RequestID, r.Tool, r.Fingerprint, string(r.Args), string(r.Status),
		sql.NullString{String: string(r.Result), Valid: r.Result != nil}, sql.NullString{String: r.Owner, Valid: r.Owner != ""},
		lease, formatTime(r.CreatedAt), formatTime(r.ExpiresAt))
	return err
}

// rewriteRequests replaces the arguments and results of stored records
// (board.SaveTx.ScrubbedRequests) while each is still the record read (its
// created_at): one swept since stays gone, and a new call that took the
// key after it expired keeps its own.
func rewriteRequests(ctx context.Context, tx *sql.Tx, records []ledger.Record) error {
	for _, r := range records {
		if _, err := tx.ExecContext(ctx, `UPDATE requests SET args = ?, result = ? WHERE principal = ? AND request_id = ? AND created_at = ?`,
			string(r.Args), sql.NullString{String: string(r.Result), Valid: r.Result != nil}, r.Key.Principal, r.Key.RequestID, formatTime(r.CreatedAt)); err != nil {
			return err
		}
	}
	return nil
}

// GetRequest returns the unexpired record under key.
func (s *Store) GetRequest(ctx context.Context, key ledger.Key, now time.Time) (ledger.Record, error) {
	return getRequest(ctx, s.read, key, now)
}

// ClaimRequest puts a running record under a lease, taking over an expired
// lease or an expired record.
func (s *Store) ClaimRequest(ctx context.Context, rec ledger.Record, now time.Time) error {
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		existing, err := getRequest(ctx, tx, rec.Key, now)
		switch {
		case err == nil && !existing.LeaseExpired(now):
			return &ledger.ExistsError{Record: existing}
		case err != nil && !errors.Is(err, board.ErrNotFound):
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM requests WHERE principal = ? AND request_id = ?`,
			rec.Key.Principal, rec.Key.RequestID); err != nil {
			return err
		}
		return putRequest(ctx, tx, rec)
	})
}

// CompleteRequest stores the result if owner still holds the lease of a
// running record. A repeat of a completion that went through (same owner,
// same result) succeeds: its first answer may have been lost.
func (s *Store) CompleteRequest(ctx context.Context, key ledger.Key, owner string, result []byte) error {
	res, err := s.write.ExecContext(ctx, `UPDATE requests SET status = ?, result = ?, lease_until = NULL
		WHERE principal = ? AND request_id = ? AND owner = ? AND status = ?`,
		string(ledger.StatusDone), string(result), key.Principal, key.RequestID, owner, string(ledger.StatusRunning))
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return nil
	}
	held, err := scanRequest(s.write.QueryRowContext(ctx, `SELECT `+requestColumns+` FROM requests
		WHERE principal = ? AND request_id = ?`, key.Principal, key.RequestID))
	if err == nil && ledger.CompletedBy(held, owner, result) {
		return nil
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	return board.ErrNotOwner
}

// ReleaseRequest deletes a running record if owner still holds it.
func (s *Store) ReleaseRequest(ctx context.Context, key ledger.Key, owner string) error {
	res, err := s.write.ExecContext(ctx, `DELETE FROM requests WHERE principal = ? AND request_id = ? AND owner = ? AND status = ?`,
		key.Principal, key.RequestID, owner, string(ledger.StatusRunning))
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return board.ErrNotOwner
	}
	return nil
}
