package openingstore

import (
	"context"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// oauth.Store's methods, forwarded as forward.go says.

// PutOAuthClient is oauth.Store's, answered once the store is open.
func (s *Store) PutOAuthClient(ctx context.Context, c board.OAuthClient) error {
	return do(ctx, s.get, func(st Backend) error { return st.PutOAuthClient(ctx, c) })
}

// GetOAuthClient is oauth.Store's, answered once the store is open.
func (s *Store) GetOAuthClient(ctx context.Context, id string, now time.Time) (board.OAuthClient, error) {
	return call(ctx, s.get, func(st Backend) (board.OAuthClient, error) { return st.GetOAuthClient(ctx, id, now) })
}

// CountOAuthRegistration is oauth.Store's, answered once the store is open.
func (s *Store) CountOAuthRegistration(ctx context.Context, window, keepUntil time.Time, limit int) (bool, error) {
	return call(ctx, s.get, func(st Backend) (bool, error) { return st.CountOAuthRegistration(ctx, window, keepUntil, limit) })
}

// CreateOAuthCode is oauth.Store's, answered once the store is open.
func (s *Store) CreateOAuthCode(ctx context.Context, c board.OAuthCode) error {
	return do(ctx, s.get, func(st Backend) error { return st.CreateOAuthCode(ctx, c) })
}

// GetOAuthCode is oauth.Store's, answered once the store is open.
func (s *Store) GetOAuthCode(ctx context.Context, hash string, now time.Time) (board.OAuthCode, error) {
	return call(ctx, s.get, func(st Backend) (board.OAuthCode, error) { return st.GetOAuthCode(ctx, hash, now) })
}

// RedeemOAuthCode is oauth.Store's, answered once the store is open.
func (s *Store) RedeemOAuthCode(ctx context.Context, r board.OAuthRedemption) error {
	return do(ctx, s.get, func(st Backend) error { return st.RedeemOAuthCode(ctx, r) })
}

// GetOAuthToken is oauth.Store's, answered by the store published early when
// the open has not finished (a credential check's read).
func (s *Store) GetOAuthToken(ctx context.Context, grantID, hash string) (board.OAuthToken, board.OAuthGrant, error) {
	st, err := s.forCredentials(ctx)
	if err != nil {
		return board.OAuthToken{}, board.OAuthGrant{}, err
	}
	return st.GetOAuthToken(ctx, grantID, hash)
}

// RotateOAuthRefresh is oauth.Store's, answered once the store is open.
func (s *Store) RotateOAuthRefresh(ctx context.Context, r board.OAuthRotation) error {
	return do(ctx, s.get, func(st Backend) error { return st.RotateOAuthRefresh(ctx, r) })
}

// GetOAuthGrant is oauth.Store's, answered once the store is open.
func (s *Store) GetOAuthGrant(ctx context.Context, id string) (board.OAuthGrant, error) {
	return call(ctx, s.get, func(st Backend) (board.OAuthGrant, error) { return st.GetOAuthGrant(ctx, id) })
}

// ListOAuthGrants is oauth.Store's, answered once the store is open.
func (s *Store) ListOAuthGrants(ctx context.Context, handle string, now time.Time) ([]board.OAuthGrant, error) {
	return call(ctx, s.get, func(st Backend) ([]board.OAuthGrant, error) { return st.ListOAuthGrants(ctx, handle, now) })
}

// RevokeOAuthGrant is oauth.Store's, answered once the store is open.
func (s *Store) RevokeOAuthGrant(ctx context.Context, id string, at time.Time) error {
	return do(ctx, s.get, func(st Backend) error { return st.RevokeOAuthGrant(ctx, id, at) })
}

// TouchOAuthGrant is oauth.Store's, answered by the store published early when
// the open has not finished (a credential check's read).
func (s *Store) TouchOAuthGrant(ctx context.Context, id string, at, staleBefore time.Time) error {
	return do(ctx, s.forCredentials, func(st Backend) error { return st.TouchOAuthGrant(ctx, id, at, staleBefore) })
}
