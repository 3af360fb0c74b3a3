package auth

import (
	"context"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// TokenStore keeps API tokens. It is part of Store (every backend implements
// it and runs the storetest suite), in its own interface. Tokens are keyed
// by their ID; the secret is never stored, only its hash.
type TokenStore interface {
	// CreateToken stores a new token. board.ErrNotFound when its person does not
	// exist; board.ErrExists when a token with its ID exists already.
	CreateToken(ctx context.Context, t board.APIToken) error
	// GetToken returns a token, revoked ones included, or board.ErrNotFound. It
	// reads the current state (a revocation made through any instance is
	// seen by the next call).
	GetToken(ctx context.Context, id string) (board.APIToken, error)
	// ListTokens returns the tokens of the person with handle, or everyone's
	// when handle is "", revoked ones included, oldest first.
	ListTokens(ctx context.Context, handle string) ([]board.APIToken, error)
	// RevokeToken sets RevokedAt to at, once: revoking a revoked token keeps
	// its first RevokedAt and is no error. board.ErrNotFound when there is none.
	RevokeToken(ctx context.Context, id string, at time.Time) error
	// TouchToken sets LastUsedAt to at when it is unset or not after
	// staleBefore, and does nothing otherwise (another instance recorded a
	// use meanwhile); a missing token is no error either.
	TouchToken(ctx context.Context, id string, at, staleBefore time.Time) error
}
