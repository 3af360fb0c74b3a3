package auth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// ErrSignIn is the one answer to a wrong handle or password, so the form
// does not tell which handles exist.
var ErrSignIn = board.Errorf(board.CodeForbidden, "wrong handle or password")

// RateLimitedError is the answer once a handle failed too often.
type RateLimitedError struct{ RetryAfter time.Duration }

func (e *RateLimitedError) Error() string {
	return "too many failed sign-ins for this handle; try again in " + e.RetryAfter.Round(time.Minute).String()
}

// SignedIn is a new session: Secret goes into the cookie, and only its hash
// into the store.
type SignedIn struct {
	Secret    string
	Person    board.Person
	ExpiresAt time.Time
}

// SignIn checks a handle and password and opens a session. After
// MaxFailures failures within FailureWindow, a handle is refused without
// its password being checked until the window moves on; every failure is
// counted in the store, so the limit holds across instances.
func (a *Accounts) SignIn(ctx context.Context, handle, password string) (SignedIn, error) {
	now := a.now()
	if board.ValidateHandle(handle) != nil || len(password) > 4*MaxPassword {
		return SignedIn{}, ErrSignIn
	}
	n, err := a.store.CountSignInFailures(ctx, handle, now.Add(-FailureWindow), MaxFailures)
	if err != nil {
		return SignedIn{}, a.failure(err)
	}
	if n >= MaxFailures {
		return SignedIn{}, &RateLimitedError{RetryAfter: FailureWindow}
	}
	p, err := a.store.GetPerson(ctx, handle)
	if err != nil && !errors.Is(err, board.ErrNotFound) {
		return SignedIn{}, a.failure(err)
	}
	hash := p.PasswordHash
	if err != nil || hash == "" {
		hash = dummyHash // same work as a real check, then refuse
	}
	ok, verr := VerifyPassword(ctx, password, hash)
	if verr != nil && !errors.Is(verr, errBadHash) {
		return SignedIn{}, a.failure(verr)
	}
	if err != nil || p.PasswordHash == "" || !ok {
		if rerr := a.store.RecordSignInFailure(ctx, handle, now, now.Add(FailureWindow)); rerr != nil {
			return SignedIn{}, a.failure(rerr)
		}
		return SignedIn{}, ErrSignIn
	}
	if p.Disabled {
		return SignedIn{}, board.Errorf(board.CodeForbidden, "this account is disabled; ask an admin")
	}
	secret := NewSecret()
	ses := board.Session{IDHash: HashSecret(secret), Handle: p.Handle, CreatedAt: now, ExpiresAt: now.Add(a.sessionTTL)}
	if err := a.store.CreateSession(ctx, ses); err != nil {
		return SignedIn{}, a.failure(err)
	}
	return SignedIn{Secret: secret, Person: p, ExpiresAt: ses.ExpiresAt}, nil
}

// SignOut ends the session a cookie's secret names.
func (a *Accounts) SignOut(ctx context.Context, secret string) error {
	if !wellFormedSecret(secret) {
		return nil
	}
	if err := a.store.DeleteSession(ctx, HashSecret(secret)); err != nil {
		return a.failure(err)
	}
	return nil
}

// errNoSession: the secret names no live session of an enabled person.
// It wraps ErrBadCredential, so bearer verifiers outside this package
// (OAuth grants) tell a person who may not act from a store that failed.
var errNoSession = fmt.Errorf("%w: no such session, or its person is missing or disabled", ErrBadCredential)

// sessionPerson resolves a session secret to its person: the session must
// be unexpired and the person enabled, read on every call so a sign-out or
// a disabled person takes effect at once on every instance.
func (a *Accounts) sessionPerson(ctx context.Context, secret string) (board.Person, error) {
	if !wellFormedSecret(secret) {
		return board.Person{}, errNoSession
	}
	ses, err := a.store.GetSession(ctx, HashSecret(secret), a.now())
	if errors.Is(err, board.ErrNotFound) {
		return board.Person{}, errNoSession
	}
	if err != nil {
		return board.Person{}, err
	}
	return a.ActivePerson(ctx, ses.Handle)
}

// ActivePerson returns a person who may act now (exists, not disabled), or
// an error; bearer verifiers (API tokens, OAuth grants) check their person
// with it too.
func (a *Accounts) ActivePerson(ctx context.Context, handle string) (board.Person, error) {
	p, err := a.store.GetPerson(ctx, handle)
	if errors.Is(err, board.ErrNotFound) || (err == nil && p.Disabled) {
		return board.Person{}, errNoSession
	}
	return p, err
}
