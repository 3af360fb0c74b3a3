package board

import (
	"context"
	"errors"
	"time"
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
	// caller reads the person itself). ErrNotFound when the credential is
	// missing: an unknown token, a session that does not exist or has
	// expired at l.Now, an OAuth token missing or of another grant. Revoked
	// tokens and grants, expired OAuth tokens and disabled people are
	// returned as they are: judging them is the caller's. It reads the
	// current state, as GetToken, GetSession and GetOAuthToken do.
	LookupCredential(ctx context.Context, l CredentialLookup) (FoundCredential, error)
}

// CredentialLookup names one credential: an API token by ID, a session by
// the hash of its secret, or an OAuth access token by its grant's ID and
// its own hash.
type CredentialLookup struct {
	Kind CredentialKind
	// ID is the token's ID, the session's IDHash, or the grant's ID.
	ID string
	// OAuthHash is the OAuth token's hash (Kind CredentialGrant only).
	OAuthHash string
	// Handle is the person to read along with it; "" reads none.
	Handle string
	// Now judges a session's expiry (Kind CredentialSession only).
	Now time.Time
}

// FoundCredential is what LookupCredential read: one of Token, Session or
// OAuthToken with Grant, by the lookup's Kind, and the person when asked
// for and found.
type FoundCredential struct {
	Token      APIToken
	Session    Session
	OAuthToken OAuthToken
	Grant      OAuthGrant
	Person     *Person
}

// LookupCredentialByParts is LookupCredential made of a store's single
// reads, for a store whose reads cost no round trip to combine (the
// embedded one) and for wrappers: the credential, then the person.
func LookupCredentialByParts(ctx context.Context, s Store, l CredentialLookup) (FoundCredential, error) {
	var f FoundCredential
	var err error
	switch l.Kind {
	case CredentialToken:
		f.Token, err = s.GetToken(ctx, l.ID)
	case CredentialSession:
		f.Session, err = s.GetSession(ctx, l.ID, l.Now)
	case CredentialGrant:
		f.OAuthToken, f.Grant, err = s.GetOAuthToken(ctx, l.ID, l.OAuthHash)
	default:
		return f, Errorf(CodeInvalid, "unknown credential kind %q", l.Kind)
	}
	if err != nil || l.Handle == "" {
		return f, err
	}
	p, err := s.GetPerson(ctx, l.Handle)
	if err == nil {
		f.Person = &p
	} else if !errors.Is(err, ErrNotFound) {
		return f, err
	}
	return f, nil
}
