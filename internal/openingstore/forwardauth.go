package openingstore

import (
	"context"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// auth.Store's methods, forwarded as forward.go says.

// PeopleStore.

// CreatePerson is auth.Store's, answered once the store is open.
func (s *Store) CreatePerson(ctx context.Context, p board.Person, inv *board.Invitation) error {
	return do(ctx, s.get, func(st Backend) error { return st.CreatePerson(ctx, p, inv) })
}

// GetPerson is auth.Store's, answered by the store published early when
// the open has not finished (a credential check's read).
func (s *Store) GetPerson(ctx context.Context, handle string) (board.Person, error) {
	return call(ctx, s.forCredentials, func(st Backend) (board.Person, error) { return st.GetPerson(ctx, handle) })
}

// ListPeople is auth.Store's, answered once the store is open.
func (s *Store) ListPeople(ctx context.Context) ([]board.Person, error) {
	return call(ctx, s.get, func(st Backend) ([]board.Person, error) { return st.ListPeople(ctx) })
}

// SetPersonDisabled is auth.Store's, answered once the store is open.
func (s *Store) SetPersonDisabled(ctx context.Context, handle string, disabled bool, ev board.PersonEvent) error {
	return do(ctx, s.get, func(st Backend) error { return st.SetPersonDisabled(ctx, handle, disabled, ev) })
}

// ListPersonEvents is auth.Store's, answered once the store is open.
func (s *Store) ListPersonEvents(ctx context.Context, handle string, limit int) ([]board.PersonEvent, error) {
	return call(ctx, s.get, func(st Backend) ([]board.PersonEvent, error) { return st.ListPersonEvents(ctx, handle, limit) })
}

// CreateInvitation is auth.Store's, answered once the store is open.
func (s *Store) CreateInvitation(ctx context.Context, inv board.Invitation) error {
	return do(ctx, s.get, func(st Backend) error { return st.CreateInvitation(ctx, inv) })
}

// GetInvitation is auth.Store's, answered once the store is open.
func (s *Store) GetInvitation(ctx context.Context, tokenHash string, now time.Time) (board.Invitation, error) {
	return call(ctx, s.get, func(st Backend) (board.Invitation, error) { return st.GetInvitation(ctx, tokenHash, now) })
}

// ListInvitations is auth.Store's, answered once the store is open.
func (s *Store) ListInvitations(ctx context.Context, now time.Time) ([]board.Invitation, error) {
	return call(ctx, s.get, func(st Backend) ([]board.Invitation, error) { return st.ListInvitations(ctx, now) })
}

// AcceptInvitation is auth.Store's, answered once the store is open.
func (s *Store) AcceptInvitation(ctx context.Context, tokenHash, passwordHash string, now time.Time) (board.Person, error) {
	return call(ctx, s.get, func(st Backend) (board.Person, error) {
		return st.AcceptInvitation(ctx, tokenHash, passwordHash, now)
	})
}

// DeleteInvitation is auth.Store's, answered once the store is open.
func (s *Store) DeleteInvitation(ctx context.Context, tokenHash string) error {
	return do(ctx, s.get, func(st Backend) error { return st.DeleteInvitation(ctx, tokenHash) })
}

// CreateSession is auth.Store's, answered once the store is open.
func (s *Store) CreateSession(ctx context.Context, ses board.Session) error {
	return do(ctx, s.get, func(st Backend) error { return st.CreateSession(ctx, ses) })
}

// GetSession is auth.Store's, answered by the store published early when
// the open has not finished (a credential check's read).
func (s *Store) GetSession(ctx context.Context, idHash string, now time.Time) (board.Session, error) {
	return call(ctx, s.forCredentials, func(st Backend) (board.Session, error) { return st.GetSession(ctx, idHash, now) })
}

// DeleteSession is auth.Store's, answered once the store is open.
func (s *Store) DeleteSession(ctx context.Context, idHash string) error {
	return do(ctx, s.get, func(st Backend) error { return st.DeleteSession(ctx, idHash) })
}

// ReserveSignInAttempt is auth.Store's, answered once the store is open.
func (s *Store) ReserveSignInAttempt(ctx context.Context, handle string, a board.SignInAttempt, since time.Time, limit int) (int, bool, error) {
	st, err := s.get(ctx)
	if err != nil {
		return -1, false, err
	}
	return st.ReserveSignInAttempt(ctx, handle, a, since, limit)
}

// ReleaseSignInAttempt is auth.Store's, answered once the store is open.
func (s *Store) ReleaseSignInAttempt(ctx context.Context, handle string, slot int, id string) error {
	return do(ctx, s.get, func(st Backend) error { return st.ReleaseSignInAttempt(ctx, handle, slot, id) })
}

// TokenStore.

// CreateToken is auth.Store's, answered once the store is open.
func (s *Store) CreateToken(ctx context.Context, t board.APIToken) error {
	return do(ctx, s.get, func(st Backend) error { return st.CreateToken(ctx, t) })
}

// GetToken is auth.Store's, answered by the store published early when
// the open has not finished (a credential check's read).
func (s *Store) GetToken(ctx context.Context, id string) (board.APIToken, error) {
	return call(ctx, s.forCredentials, func(st Backend) (board.APIToken, error) { return st.GetToken(ctx, id) })
}

// ListTokens is auth.Store's, answered once the store is open.
func (s *Store) ListTokens(ctx context.Context, handle string) ([]board.APIToken, error) {
	return call(ctx, s.get, func(st Backend) ([]board.APIToken, error) { return st.ListTokens(ctx, handle) })
}

// RevokeToken is auth.Store's, answered once the store is open.
func (s *Store) RevokeToken(ctx context.Context, id string, at time.Time) error {
	return do(ctx, s.get, func(st Backend) error { return st.RevokeToken(ctx, id, at) })
}

// TouchToken is auth.Store's, answered by the store published early when
// the open has not finished (a credential check's read).
func (s *Store) TouchToken(ctx context.Context, id string, at, staleBefore time.Time) error {
	return do(ctx, s.forCredentials, func(st Backend) error { return st.TouchToken(ctx, id, at, staleBefore) })
}

// CredentialStore.

// LookupCredential is auth.Store's, answered by the store published early
// when the open has not finished (a credential check's read).
func (s *Store) LookupCredential(ctx context.Context, l board.CredentialLookup) (board.FoundCredential, error) {
	return call(ctx, s.forCredentials, func(st Backend) (board.FoundCredential, error) { return st.LookupCredential(ctx, l) })
}
