package auth

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// ErrSignIn is the one answer to a wrong handle or password, so the form
// does not tell which handles exist.
var ErrSignIn = board.Errorf(board.CodeForbidden, "wrong handle or password")

// RateLimitedError is the answer once a handle failed too often, or one
// client address tried too often or too many at once. The text is the same
// for every handle, known or not.
type RateLimitedError struct{ RetryAfter time.Duration }

// Error tells the caller how long to wait (rounded to the second, at least
// one) without saying which limit was hit.
func (e *RateLimitedError) Error() string {
	wait := e.RetryAfter.Round(time.Second)
	if wait < time.Second {
		wait = time.Second
	}
	return "too many sign-in attempts; try again in " + wait.String()
}

// SignedIn is a new session: Secret goes into the cookie, and only its hash
// into the store.
type SignedIn struct {
	Secret    string
	Person    board.Person
	ExpiresAt time.Time
}

// SignIn checks a handle and password, sent from a client address, and
// opens a session.
//
// Limits, checked before any password is: a client address may have one
// check running and addrPerWindow per minute in this process (addrgate.go),
// and a handle MaxFailures failed checks per FailureWindow on every
// instance. The handle's attempt is reserved in the store before the hash
// is computed and released only on success, so any number of concurrent
// requests on any number of instances get at most MaxFailures wrong
// passwords evaluated. A disabled person gets the answer of a wrong
// password even with the right one (their attempt is not released), so the
// form tells nobody which accounts are disabled.
func (a *Accounts) SignIn(ctx context.Context, handle, password string, from netip.Addr) (SignedIn, error) {
	now := a.now()
	if board.ValidateHandle(handle) != nil || len(password) > 4*MaxPassword {
		return SignedIn{}, ErrSignIn
	}
	leave, wait := a.addrs.enter(from, now)
	if leave == nil {
		return SignedIn{}, &RateLimitedError{RetryAfter: wait}
	}
	defer leave()
	attempt := board.SignInAttempt{ID: NewSecret(), At: now, KeepUntil: now.Add(FailureWindow)}
	slot, ok, err := a.store.ReserveSignInAttempt(ctx, handle, attempt, now.Add(-FailureWindow), MaxFailures)
	if err != nil {
		return SignedIn{}, a.failure(err)
	}
	if !ok {
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
	if a.onCheck != nil {
		a.onCheck()
	}
	right, verr := VerifyPassword(ctx, password, hash)
	if verr != nil && !errors.Is(verr, errBadHash) {
		return SignedIn{}, a.failure(verr)
	}
	if err != nil || p.PasswordHash == "" || !right || p.Disabled {
		return SignedIn{}, ErrSignIn // the reserved attempt stays: it counts
	}
	if err := a.store.ReleaseSignInAttempt(ctx, handle, slot, attempt.ID); err != nil {
		a.log.Warn("auth: releasing a sign-in attempt failed; it counts against the handle until it ages out", "err", err)
	}
	return a.openSession(ctx, p, now)
}

// openSession stores a new session of p made at now.
func (a *Accounts) openSession(ctx context.Context, p board.Person, now time.Time) (SignedIn, error) {
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
	f, p, err := a.LookupCredential(ctx, board.CredentialLookup{Kind: board.CredentialSession, ID: HashSecret(secret), Now: a.now()},
		func(f board.FoundCredential) string { return f.Session.Handle })
	if errors.Is(err, ErrBadCredential) {
		return board.Person{}, errNoSession
	}
	if err == nil && p.Voids(f.Session.CreatedAt) {
		// Made before a password reset or a disable: ended for good.
		return board.Person{}, errNoSession
	}
	return p, err
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
