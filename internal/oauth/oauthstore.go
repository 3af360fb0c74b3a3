package oauth

import (
	"context"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Store keeps the authorization server's clients, codes, grants and
// tokens. Every backend implements it beside board.Store and runs the
// storetest suite. Methods that judge expiry take
// "now" from the caller; judging a token (its kind, expiry, use, its grant's
// revocation) is the caller's, the store only keeps the records and makes
// the changes that must be atomic.
type Store interface {
	// PutOAuthClient stores a client, replacing the one with its ID.
	PutOAuthClient(ctx context.Context, c board.OAuthClient) error
	// GetOAuthClient returns a client unexpired at now, or board.ErrNotFound.
	GetOAuthClient(ctx context.Context, id string, now time.Time) (board.OAuthClient, error)
	// CountOAuthRegistration counts one client registration in the window
	// that began at window, if fewer than limit were counted in it, and
	// says whether it did, atomically across instances: of any number of
	// concurrent calls for one window, at most limit are ok. The store may
	// forget a window after keepUntil.
	CountOAuthRegistration(ctx context.Context, window, keepUntil time.Time, limit int) (ok bool, err error)

	// CreateOAuthCode stores a new authorization code; ErrExists when its
	// hash is taken.
	CreateOAuthCode(ctx context.Context, c board.OAuthCode) error
	// GetOAuthCode returns a code unexpired at now, used or not, or
	// board.ErrNotFound.
	GetOAuthCode(ctx context.Context, hash string, now time.Time) (board.OAuthCode, error)
	// RedeemOAuthCode marks the code used and stores the grant and its
	// tokens, atomically, if the code is still unused and unexpired at
	// r.Now (board.ErrUsed otherwise: of two concurrent redemptions one wins) and
	// r.KeepClient, when set, still exists (board.ErrNotFound otherwise). ErrExists
	// when the grant's ID is taken.
	RedeemOAuthCode(ctx context.Context, r board.OAuthRedemption) error

	// GetOAuthToken returns the token with hash and its grant, or
	// board.ErrNotFound when either is missing or the token is another grant's.
	// Expired and used tokens and revoked grants are returned as they are.
	GetOAuthToken(ctx context.Context, grantID, hash string) (board.OAuthToken, board.OAuthGrant, error)
	// RotateOAuthRefresh marks the refresh token used, stores the next
	// tokens and moves the grant's expiry, atomically, if the token is
	// still unused and the grant unrevoked (board.ErrUsed otherwise).
	RotateOAuthRefresh(ctx context.Context, r board.OAuthRotation) error

	// GetOAuthGrant returns a grant, revoked or expired ones included, or
	// board.ErrNotFound.
	GetOAuthGrant(ctx context.Context, id string) (board.OAuthGrant, error)
	// ListOAuthGrants returns the grants of the person with handle, or
	// everyone's when handle is "", unexpired at now (revoked ones
	// included), oldest first.
	ListOAuthGrants(ctx context.Context, handle string, now time.Time) ([]board.OAuthGrant, error)
	// RevokeOAuthGrant sets RevokedAt to at, once: revoking a revoked grant
	// keeps the first time and is no error. board.ErrNotFound when there is none.
	RevokeOAuthGrant(ctx context.Context, id string, at time.Time) error
	// TouchOAuthGrant sets LastUsedAt to at when it is unset or not after
	// staleBefore, and does nothing otherwise; a missing grant is no error.
	TouchOAuthGrant(ctx context.Context, id string, at, staleBefore time.Time) error
}
