package auth

import (
	"context"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// PeopleStore keeps people and their credentials. It is part of Store (every
// backend implements it and runs the storetest suite), in its own interface
// so each part reads as one piece. Secrets are never stored: sessions
// and invitations are keyed by the SHA-256 of their secret. Methods that
// judge expiry take "now" from the caller.
type PeopleStore interface {
	// CreatePerson adds a person and, if inv is set, their first
	// invitation, atomically. board.ErrExists when the handle is taken.
	CreatePerson(ctx context.Context, p board.Person, inv *board.Invitation) error
	// GetPerson returns a person, or board.ErrNotFound.
	GetPerson(ctx context.Context, handle string) (board.Person, error)
	// ListPeople returns everyone, by handle.
	ListPeople(ctx context.Context) ([]board.Person, error)
	// SetPersonDisabled disables or re-enables a person and records ev
	// (whose Handle is the person's) in their history, atomically.
	// Disabling also moves CredentialsNotBefore to ev.At, so no session
	// made before it is ever valid again. board.ErrNotFound.
	SetPersonDisabled(ctx context.Context, handle string, disabled bool, ev board.PersonEvent) error
	// ListPersonEvents returns up to limit of a person's account events,
	// newest first.
	ListPersonEvents(ctx context.Context, handle string, limit int) ([]board.PersonEvent, error)

	// CreateInvitation stores an invitation; board.ErrNotFound when the person
	// does not exist. Storing one whose hash exists already changes
	// nothing and is no error (a form submitted twice).
	CreateInvitation(ctx context.Context, inv board.Invitation) error
	// GetInvitation returns an unexpired, unused invitation, or board.ErrNotFound.
	GetInvitation(ctx context.Context, tokenHash string, now time.Time) (board.Invitation, error)
	// ListInvitations returns the unexpired, unused invitations, oldest first.
	ListInvitations(ctx context.Context, now time.Time) ([]board.Invitation, error)
	// AcceptInvitation uses the invitation up and sets its person's
	// password hash, atomically: of two calls with one invitation, one
	// succeeds. In the same transaction it moves the person's
	// CredentialsNotBefore to now (ending their other sessions and voiding
	// their other invitations) and records a PersonPasswordSet event by the
	// person. board.ErrNotFound when the invitation is unknown, used, expired, or
	// void (made before the person's CredentialsNotBefore).
	AcceptInvitation(ctx context.Context, tokenHash, passwordHash string, now time.Time) (board.Person, error)
	// DeleteInvitation revokes an invitation; deleting a missing one is no error.
	DeleteInvitation(ctx context.Context, tokenHash string) error

	// CreateSession stores a signed-in session.
	CreateSession(ctx context.Context, s board.Session) error
	// GetSession returns an unexpired session, or board.ErrNotFound.
	GetSession(ctx context.Context, idHash string, now time.Time) (board.Session, error)
	// DeleteSession signs a session out; deleting a missing one is no error.
	DeleteSession(ctx context.Context, idHash string) error

	// ReserveSignInAttempt takes one of limit attempt slots of a handle
	// before its password is checked, atomically across instances: a slot
	// is free when it is empty or its attempt is not after since. It
	// returns the slot taken, or ok false when every slot holds a newer
	// attempt (the caller then refuses without checking the password).
	// The store may forget an attempt after a.KeepUntil.
	ReserveSignInAttempt(ctx context.Context, handle string, a board.SignInAttempt, since time.Time, limit int) (slot int, ok bool, err error)
	// ReleaseSignInAttempt frees a slot after a successful sign-in, if it
	// still holds the attempt with id; otherwise it does nothing.
	ReleaseSignInAttempt(ctx context.Context, handle string, slot int, id string) error
}
