package board

import (
	"context"
	"errors"
	"time"
)

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

// CredentialParts are the single reads of a credential and of a person that
// LookupCredentialByParts combines.
type CredentialParts interface {
	GetToken(ctx context.Context, id string) (APIToken, error)
	GetSession(ctx context.Context, idHash string, now time.Time) (Session, error)
	GetOAuthToken(ctx context.Context, grantID, hash string) (OAuthToken, OAuthGrant, error)
	GetPerson(ctx context.Context, handle string) (Person, error)
}

// LookupCredentialByParts is a credential lookup (auth.CredentialStore)
// made of a store's single reads, for a store whose reads cost no round
// trip to combine (the embedded one) and for wrappers: the credential, then
// the person.
func LookupCredentialByParts(ctx context.Context, s CredentialParts, l CredentialLookup) (FoundCredential, error) {
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
