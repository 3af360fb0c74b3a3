package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The OAuth authorization server's records (oauth.Store): clients,
// codes, grants and their tokens, in the tables of oauthSchema. The
// atomic changes (redeeming a code, rotating a refresh token) are one
// transaction each, whose UPDATE … WHERE carries the condition.

const (
	oauthClientColumns = `id, kind, name, uri, redirect_uris, created_at, expires_at`
	oauthCodeColumns   = `hash, client_id, client_name, redirect_uri, challenge, resource, scope, handle, agent, grant_id, created_at, expires_at, used_at`
	oauthGrantColumns  = `id, client_id, client_name, handle, agent, resource, scope, created_at, expires_at, last_used_at, revoked_at`
	oauthTokenColumns  = `hash, grant_id, kind, created_at, expires_at, used_at`
)

func scanOAuthClient(row scanner) (board.OAuthClient, error) {
	var c board.OAuthClient
	var kind, uris, created string
	var expires sql.NullString
	if err := row.Scan(&c.ID, &kind, &c.Name, &c.URI, &uris, &created, &expires); err != nil {
		return c, err
	}
	c.Kind = board.OAuthClientKind(kind)
	if err := json.Unmarshal([]byte(uris), &c.RedirectURIs); err != nil {
		return c, err
	}
	var err error
	if c.CreatedAt, err = parseTime(created); err != nil {
		return c, err
	}
	if expires.Valid {
		c.ExpiresAt, err = parseTime(expires.String)
	}
	return c, err
}

func scanOAuthCode(row scanner) (board.OAuthCode, error) {
	var c board.OAuthCode
	var created, expires string
	var used sql.NullString
	if err := row.Scan(&c.Hash, &c.ClientID, &c.ClientName, &c.RedirectURI, &c.Challenge, &c.Resource, &c.Scope, &c.Handle,
		&c.Agent, &c.GrantID, &created, &expires, &used); err != nil {
		return c, err
	}
	var err error
	if c.CreatedAt, err = parseTime(created); err != nil {
		return c, err
	}
	if c.ExpiresAt, err = parseTime(expires); err != nil {
		return c, err
	}
	c.UsedAt, err = optionalTime(used)
	return c, err
}

func scanOAuthGrant(row scanner, extra ...any) (board.OAuthGrant, error) {
	var g board.OAuthGrant
	var created, expires string
	var used, revoked sql.NullString
	dest := append([]any{&g.ID, &g.ClientID, &g.ClientName, &g.Handle, &g.Agent, &g.Resource, &g.Scope, &created, &expires,
		&used, &revoked}, extra...)
	if err := row.Scan(dest...); err != nil {
		return g, err
	}
	var err error
	if g.CreatedAt, err = parseTime(created); err != nil {
		return g, err
	}
	if g.ExpiresAt, err = parseTime(expires); err != nil {
		return g, err
	}
	if g.LastUsedAt, err = optionalTime(used); err != nil {
		return g, err
	}
	g.RevokedAt, err = optionalTime(revoked)
	return g, err
}

// PutOAuthClient inserts or replaces the client.
func (s *Store) PutOAuthClient(ctx context.Context, c board.OAuthClient) error {
	uris, err := json.Marshal(c.RedirectURIs)
	if err != nil {
		return err
	}
	var expires sql.NullString
	if !c.ExpiresAt.IsZero() {
		expires = sql.NullString{String: formatTime(c.ExpiresAt), Valid: true}
	}
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO oauth_clients (`+oauthClientColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			c.ID, string(c.Kind), c.Name, c.URI, string(uris), formatTime(c.CreatedAt), expires)
		return err
	})
}

// CountOAuthRegistration counts in one upsert whose update applies only
// below the limit: no row changed means the window is full.
func (s *Store) CountOAuthRegistration(ctx context.Context, window, keepUntil time.Time, limit int) (bool, error) {
	if limit <= 0 {
		return false, nil
	}
	var counted bool
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO oauth_registration_windows (window_start, n, keep_until) VALUES (?, 1, ?)
			ON CONFLICT (window_start) DO UPDATE SET n = n + 1 WHERE n < ?`,
			formatTime(window), formatTime(keepUntil), limit)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		counted = n == 1
		return err
	})
	return counted, err
}

// GetOAuthClient reads an unexpired client.
func (s *Store) GetOAuthClient(ctx context.Context, id string, now time.Time) (board.OAuthClient, error) {
	c, err := scanOAuthClient(s.read.QueryRowContext(ctx, `SELECT `+oauthClientColumns+` FROM oauth_clients
		WHERE id = ? AND (expires_at IS NULL OR expires_at > ?)`, id, formatTime(now)))
	if errors.Is(err, sql.ErrNoRows) {
		return c, board.ErrNotFound
	}
	return c, err
}

// CreateOAuthCode inserts the code if its hash is free.
func (s *Store) CreateOAuthCode(ctx context.Context, c board.OAuthCode) error {
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO oauth_codes (`+oauthCodeColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (hash) DO NOTHING`,
			c.Hash, c.ClientID, c.ClientName, c.RedirectURI, c.Challenge, c.Resource, c.Scope, c.Handle, c.Agent, c.GrantID,
			formatTime(c.CreatedAt), formatTime(c.ExpiresAt), nullTime(c.UsedAt))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return board.ErrExists
		}
		return nil
	})
}

// GetOAuthCode reads an unexpired code.
func (s *Store) GetOAuthCode(ctx context.Context, hash string, now time.Time) (board.OAuthCode, error) {
	c, err := scanOAuthCode(s.read.QueryRowContext(ctx, `SELECT `+oauthCodeColumns+` FROM oauth_codes WHERE hash = ? AND expires_at > ?`,
		hash, formatTime(now)))
	if errors.Is(err, sql.ErrNoRows) {
		return c, board.ErrNotFound
	}
	return c, err
}

// RedeemOAuthCode uses the code up (the UPDATE's condition), then keeps
// the client and stores the grant and its tokens, in one transaction.
func (s *Store) RedeemOAuthCode(ctx context.Context, r board.OAuthRedemption) error {
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE oauth_codes SET used_at = ? WHERE hash = ? AND used_at IS NULL AND expires_at > ?`,
			formatTime(r.Now), r.CodeHash, formatTime(r.Now))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return board.ErrUsed
		}
		if r.KeepClient != "" {
			res, err := tx.ExecContext(ctx, `UPDATE oauth_clients SET expires_at = NULL WHERE id = ? AND (expires_at IS NULL OR expires_at > ?)`,
				r.KeepClient, formatTime(r.Now))
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return board.ErrNotFound
			}
		}
		g := r.Grant
		res, err = tx.ExecContext(ctx, `INSERT INTO oauth_grants (`+oauthGrantColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO NOTHING`,
			g.ID, g.ClientID, g.ClientName, g.Handle, g.Agent, g.Resource, g.Scope, formatTime(g.CreatedAt), formatTime(g.ExpiresAt),
			nullTime(g.LastUsedAt), nullTime(g.RevokedAt))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return board.ErrExists
		}
		return insertOAuthTokens(ctx, tx, r.Tokens)
	})
}

func insertOAuthTokens(ctx context.Context, tx *sql.Tx, tokens []board.OAuthToken) error {
	for _, t := range tokens {
		if _, err := tx.ExecContext(ctx, `INSERT INTO oauth_tokens (`+oauthTokenColumns+`) VALUES (?, ?, ?, ?, ?, ?)`,
			t.Hash, t.GrantID, string(t.Kind), formatTime(t.CreatedAt), formatTime(t.ExpiresAt), nullTime(t.UsedAt)); err != nil {
			return err
		}
	}
	return nil
}

// GetOAuthToken reads the token and its grant in one query.
func (s *Store) GetOAuthToken(ctx context.Context, grantID, hash string) (board.OAuthToken, board.OAuthGrant, error) {
	var t board.OAuthToken
	var kind, created, expires string
	var used sql.NullString
	g, err := scanOAuthGrant(s.read.QueryRowContext(ctx, `SELECT g.id, g.client_id, g.client_name, g.handle, g.agent, g.resource,
			g.scope, g.created_at, g.expires_at, g.last_used_at, g.revoked_at, t.hash, t.kind, t.created_at, t.expires_at, t.used_at
		FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.hash = ? AND t.grant_id = ?`, hash, grantID),
		&t.Hash, &kind, &created, &expires, &used)
	if errors.Is(err, sql.ErrNoRows) {
		return t, g, board.ErrNotFound
	}
	if err != nil {
		return t, g, err
	}
	t.GrantID, t.Kind = g.ID, board.OAuthTokenKind(kind)
	if t.CreatedAt, err = parseTime(created); err != nil {
		return t, g, err
	}
	if t.ExpiresAt, err = parseTime(expires); err != nil {
		return t, g, err
	}
	t.UsedAt, err = optionalTime(used)
	return t, g, err
}

// RotateOAuthRefresh uses the refresh token up on the condition that it is
// unused and its grant unrevoked, then stores the next tokens and moves the
// grant's expiry, in one transaction.
func (s *Store) RotateOAuthRefresh(ctx context.Context, r board.OAuthRotation) error {
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE oauth_tokens SET used_at = ?
			WHERE hash = ? AND grant_id = ? AND used_at IS NULL
				AND EXISTS (SELECT 1 FROM oauth_grants WHERE id = ? AND revoked_at IS NULL)`,
			formatTime(r.Now), r.UsedHash, r.GrantID, r.GrantID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return board.ErrUsed
		}
		if _, err := tx.ExecContext(ctx, `UPDATE oauth_grants SET expires_at = ? WHERE id = ?`, formatTime(r.GrantExpiresAt), r.GrantID); err != nil {
			return err
		}
		return insertOAuthTokens(ctx, tx, r.Next)
	})
}

// GetOAuthGrant reads one grant.
func (s *Store) GetOAuthGrant(ctx context.Context, id string) (board.OAuthGrant, error) {
	g, err := scanOAuthGrant(s.read.QueryRowContext(ctx, `SELECT `+oauthGrantColumns+` FROM oauth_grants WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return g, board.ErrNotFound
	}
	return g, err
}

// ListOAuthGrants lists a person's unexpired grants, or everyone's.
func (s *Store) ListOAuthGrants(ctx context.Context, handle string, now time.Time) ([]board.OAuthGrant, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+oauthGrantColumns+` FROM oauth_grants
		WHERE (? = '' OR handle = ?) AND expires_at > ? ORDER BY created_at, id`, handle, handle, formatTime(now))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []board.OAuthGrant{}
	for rows.Next() {
		g, err := scanOAuthGrant(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// RevokeOAuthGrant sets revoked_at once.
func (s *Store) RevokeOAuthGrant(ctx context.Context, id string, at time.Time) error {
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var exists bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM oauth_grants WHERE id = ?)`, id).Scan(&exists); err != nil {
			return err
		}
		if !exists {
			return board.ErrNotFound
		}
		_, err := tx.ExecContext(ctx, `UPDATE oauth_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`, formatTime(at), id)
		return err
	})
}

// TouchOAuthGrant records a use when the last recorded one is stale.
func (s *Store) TouchOAuthGrant(ctx context.Context, id string, at, staleBefore time.Time) error {
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE oauth_grants SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)`,
			formatTime(at), id, formatTime(staleBefore))
		return err
	})
}

// sweepOAuth deletes what can never be used again: expired codes, tokens,
// grants (their tokens go with them) and clients. It returns how many rows
// it deleted.
func (s *Store) sweepOAuth(ctx context.Context, now time.Time) (int, error) {
	total := 0
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for _, q := range []string{
			`DELETE FROM oauth_codes WHERE expires_at <= ?`,
			`DELETE FROM oauth_tokens WHERE expires_at <= ?`,
			`DELETE FROM oauth_grants WHERE expires_at <= ?`,
			`DELETE FROM oauth_clients WHERE expires_at IS NOT NULL AND expires_at <= ?`,
			`DELETE FROM oauth_registration_windows WHERE keep_until <= ?`,
		} {
			res, err := tx.ExecContext(ctx, q, formatTime(now))
			if err != nil {
				return err
			}
			n, _ := res.RowsAffected()
			total += int(n)
		}
		return nil
	})
	return total, err
}
