package board

import (
	"context"
	"errors"
	"time"
)

// PeopleStore keeps people and their credentials. It is part of Store (every
// backend implements it and runs the storetest suite), in its own interface
// so the ticket contract stays readable. Secrets are never stored: sessions
// and invitations are keyed by the SHA-256 of their secret. Methods that
// judge expiry take "now" from the caller.
type PeopleStore interface {
	// CreatePerson adds a person and, if inv is set, their first
	// invitation, atomically. ErrExists when the handle is taken.
	CreatePerson(ctx context.Context, p Person, inv *Invitation) error
	// GetPerson returns a person, or ErrNotFound.
	GetPerson(ctx context.Context, handle string) (Person, error)
	// ListPeople returns everyone, by handle.
	ListPeople(ctx context.Context) ([]Person, error)
	// SetPersonDisabled disables or re-enables a person; ErrNotFound.
	SetPersonDisabled(ctx context.Context, handle string, disabled bool) error

	// CreateInvitation stores an invitation; ErrNotFound when the person
	// does not exist. Storing one whose hash exists already changes
	// nothing and is no error (a form submitted twice).
	CreateInvitation(ctx context.Context, inv Invitation) error
	// GetInvitation returns an unexpired, unused invitation, or ErrNotFound.
	GetInvitation(ctx context.Context, tokenHash string, now time.Time) (Invitation, error)
	// ListInvitations returns the unexpired, unused invitations, oldest first.
	ListInvitations(ctx context.Context, now time.Time) ([]Invitation, error)
	// AcceptInvitation uses the invitation up and sets its person's
	// password hash, atomically: of two calls with one invitation, one
	// succeeds. ErrNotFound when the invitation is unknown, used or expired.
	AcceptInvitation(ctx context.Context, tokenHash, passwordHash string, now time.Time) (Person, error)
	// DeleteInvitation revokes an invitation; deleting a missing one is no error.
	DeleteInvitation(ctx context.Context, tokenHash string) error

	// CreateSession stores a signed-in session.
	CreateSession(ctx context.Context, s Session) error
	// GetSession returns an unexpired session, or ErrNotFound.
	GetSession(ctx context.Context, idHash string, now time.Time) (Session, error)
	// DeleteSession signs a session out; deleting a missing one is no error.
	DeleteSession(ctx context.Context, idHash string) error

	// RecordSignInFailure notes a failed sign-in for handle at a time; the
	// store may forget it after keepUntil.
	RecordSignInFailure(ctx context.Context, handle string, at, keepUntil time.Time) error
	// CountSignInFailures counts handle's failures after since, stopping
	// at limit (the answer is at most limit).
	CountSignInFailures(ctx context.Context, handle string, since time.Time, limit int) (int, error)
}

// ErrExists is returned by stores when a person or workspace to be created
// exists already.
var ErrExists = errors.New("already exists")
