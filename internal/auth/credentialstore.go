package auth

import (
	"context"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// CredentialStore reads what a call's credential check needs in one
// request: the credential and, when the caller already knows whose it is,
// that person. A credential's person never changes (a token, session or
// grant is made for one person and stays theirs), so an instance may
// remember it; what it must read on every call is the state (revoked,
// expired, disabled, password reset), and this reads both at once. It is
// part of Store (every backend implements it and runs the storetest suite).
type CredentialStore interface {
	// LookupCredential returns the credential l names and, when l.Handle is
	// set and such a person exists, that person (Person nil otherwise: the
	// caller reads the person itself). board.ErrNotFound when the credential is
	// missing: an unknown token, a session that does not exist or has
	// expired at l.Now, an OAuth token missing or of another grant. Revoked
	// tokens and grants, expired OAuth tokens and disabled people are
	// returned as they are: judging them is the caller's. It reads the
	// current state, as GetToken, GetSession and GetOAuthToken do.
	LookupCredential(ctx context.Context, l board.CredentialLookup) (board.FoundCredential, error)
}
