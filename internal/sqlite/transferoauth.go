package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Connected agents in a move (boardfile.OAuthTransferSource, boardfile.OAuthTransferTarget):
// grants and tokens are read by keyset, a page per short query, like the
// rest of an export, and put one per transaction, only when absent.

// TransferOAuthGrants streams the grants unrevoked and unexpired at now, by id.
func (s *Store) TransferOAuthGrants(ctx context.Context, now time.Time, fn func(board.OAuthGrant) error) error {
	return inPages(func(last *board.OAuthGrant) (*sql.Rows, error) {
		after := ""
		if last != nil {
			after = last.ID
		}
		return s.read.QueryContext(ctx, `SELECT `+oauthGrantColumns+` FROM oauth_grants
			WHERE id > ? AND revoked_at IS NULL AND expires_at > ? ORDER BY id LIMIT ?`, after, formatTime(now), exportPage)
	}, func(row scanner) (board.OAuthGrant, error) { return scanOAuthGrant(row) }, fn)
}

// TransferOAuthTokens streams the tokens unexpired at now, by hash.
func (s *Store) TransferOAuthTokens(ctx context.Context, now time.Time, fn func(board.OAuthToken) error) error {
	return inPages(func(last *board.OAuthToken) (*sql.Rows, error) {
		after := ""
		if last != nil {
			after = last.Hash
		}
		return s.read.QueryContext(ctx, `SELECT `+oauthTokenColumns+` FROM oauth_tokens
			WHERE hash > ? AND expires_at > ? ORDER BY hash LIMIT ?`, after, formatTime(now), exportPage)
	}, scanOAuthToken, fn)
}

func scanOAuthToken(row scanner) (board.OAuthToken, error) {
	var t board.OAuthToken
	var kind, created, expires string
	var used sql.NullString
	if err := row.Scan(&t.Hash, &t.GrantID, &kind, &created, &expires, &used); err != nil {
		return t, err
	}
	t.Kind = board.OAuthTokenKind(kind)
	var err error
	if t.CreatedAt, err = parseTime(created); err != nil {
		return t, err
	}
	if t.ExpiresAt, err = parseTime(expires); err != nil {
		return t, err
	}
	t.UsedAt, err = optionalTime(used)
	return t, err
}

// PutOAuthGrant inserts the grant if its id is free and its person exists.
func (s *Store) PutOAuthGrant(ctx context.Context, g board.OAuthGrant) (board.PutOutcome, error) {
	var out board.PutOutcome
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		have, err := scanOAuthGrant(tx.QueryRowContext(ctx, `SELECT `+oauthGrantColumns+` FROM oauth_grants WHERE id = ?`, g.ID))
		if err == nil {
			out = outcome(board.SameOAuthGrant(have, g))
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var person bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM people WHERE handle = ?)`, g.Handle).Scan(&person); err != nil {
			return err
		}
		if !person {
			return board.ErrNotFound
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO oauth_grants (`+oauthGrantColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			g.ID, g.ClientID, g.ClientName, g.Handle, g.Agent, g.Resource, g.Scope, formatTime(g.CreatedAt), formatTime(g.ExpiresAt),
			nullTime(g.LastUsedAt), nullTime(g.RevokedAt))
		out = board.Added
		return err
	})
	return out, err
}

// PutOAuthToken inserts the token if its hash is free and its grant exists.
func (s *Store) PutOAuthToken(ctx context.Context, t board.OAuthToken) (board.PutOutcome, error) {
	var out board.PutOutcome
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		have, err := scanOAuthToken(tx.QueryRowContext(ctx, `SELECT `+oauthTokenColumns+` FROM oauth_tokens WHERE hash = ?`, t.Hash))
		if err == nil {
			out = outcome(board.SameOAuthToken(have, t))
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var grant bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM oauth_grants WHERE id = ?)`, t.GrantID).Scan(&grant); err != nil {
			return err
		}
		if !grant {
			return board.ErrNotFound
		}
		out = board.Added
		return insertOAuthTokens(ctx, tx, []board.OAuthToken{t})
	})
	return out, err
}
