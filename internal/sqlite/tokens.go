package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

const tokenColumns = `id, hash, handle, agent, label, created_by, created_at, last_used_at, revoked_at`

func scanToken(row scanner) (board.APIToken, error) {
	var t board.APIToken
	var created string
	var used, revoked sql.NullString
	if err := row.Scan(&t.ID, &t.Hash, &t.Handle, &t.Agent, &t.Label, &t.CreatedBy, &created, &used, &revoked); err != nil {
		return t, err
	}
	var err error
	if t.CreatedAt, err = parseTime(created); err != nil {
		return t, err
	}
	if t.LastUsedAt, err = optionalTime(used); err != nil {
		return t, err
	}
	t.RevokedAt, err = optionalTime(revoked)
	return t, err
}

func optionalTime(ns sql.NullString) (*time.Time, error) {
	if !ns.Valid {
		return nil, nil
	}
	t, err := parseTime(ns.String)
	return &t, err
}

// CreateToken inserts the token if its person exists and its id is free.
func (s *Store) CreateToken(ctx context.Context, t board.APIToken) error {
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var exists bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM people WHERE handle = ?)`, t.Handle).Scan(&exists); err != nil {
			return err
		}
		if !exists {
			return board.ErrNotFound
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO api_tokens (`+tokenColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
			t.ID, t.Hash, t.Handle, t.Agent, t.Label, t.CreatedBy, formatTime(t.CreatedAt), nullTime(t.LastUsedAt), nullTime(t.RevokedAt))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return board.ErrExists
		}
		return nil
	})
}

// GetToken reads one token (a committed snapshot: a revocation is seen as
// soon as it committed, by every process on the file).
func (s *Store) GetToken(ctx context.Context, id string) (board.APIToken, error) {
	t, err := scanToken(s.read.QueryRowContext(ctx, `SELECT `+tokenColumns+` FROM api_tokens WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return t, board.ErrNotFound
	}
	return t, err
}

// ListTokens lists a person's tokens, or everyone's, oldest first.
func (s *Store) ListTokens(ctx context.Context, handle string) ([]board.APIToken, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+tokenColumns+` FROM api_tokens WHERE ? = '' OR handle = ? ORDER BY created_at, id`, handle, handle)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []board.APIToken{}
	for rows.Next() {
		t, err := scanToken(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// RevokeToken sets revoked_at once.
func (s *Store) RevokeToken(ctx context.Context, id string, at time.Time) error {
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var exists bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM api_tokens WHERE id = ?)`, id).Scan(&exists); err != nil {
			return err
		}
		if !exists {
			return board.ErrNotFound
		}
		_, err := tx.ExecContext(ctx, `UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`, formatTime(at), id)
		return err
	})
}

// TouchToken records a use when the last recorded one is stale.
func (s *Store) TouchToken(ctx context.Context, id string, at, staleBefore time.Time) error {
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE api_tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)`,
			formatTime(at), id, formatTime(staleBefore))
		return err
	})
}

// LookupCredential reads the credential, then the person: on the embedded
// store two reads cost no more than one.
func (s *Store) LookupCredential(ctx context.Context, l board.CredentialLookup) (board.FoundCredential, error) {
	return board.LookupCredentialByParts(ctx, s, l)
}
