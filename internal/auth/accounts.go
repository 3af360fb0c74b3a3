// Package auth turns credentials into principals and keeps people's
// credentials: password hashing (argon2id), sign-in with a rate limit per
// handle, sessions, invitations, and the one Resolver every surface asks
// who is calling. API tokens and OAuth grants plug into the same Resolver
// as bearer verifiers. The package owns the contract of what it keeps
// (Store: PeopleStore, TokenStore, CredentialStore), which every backend
// implements beside board.Store.
package auth

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Defaults of Config.
const (
	DefaultSessionTTL    = 7 * 24 * time.Hour
	DefaultInvitationTTL = 7 * 24 * time.Hour
	// A handle that failed to sign in MaxFailures times within
	// FailureWindow is refused until the oldest of them leaves the window,
	// without its password being checked (on every instance: the attempts
	// are reserved in the store).
	MaxFailures   = 5
	FailureWindow = 15 * time.Minute
)

// Operator is the principal of the admin commands: whoever can run the
// binary against the store administers it.
var Operator = board.Principal{Author: "operator", Role: board.RoleAdmin}

// Store is what Accounts keeps: people, their sessions and invitations,
// and their API tokens. Every backend implements it and runs the storetest
// suite.
type Store interface {
	PeopleStore
	TokenStore
	CredentialStore
}

// Config configures Accounts.
type Config struct {
	Store         Store
	SessionTTL    time.Duration    // 0: DefaultSessionTTL
	InvitationTTL time.Duration    // 0: DefaultInvitationTTL
	Now           func() time.Time // the clock; tests move it
	Logger        *slog.Logger
	// OnPasswordCheck, if set, is called each time a sign-in is about to
	// check a password: tests count the (expensive) checks with it.
	OnPasswordCheck func()
}

// Accounts holds the people use cases: adding, disabling, inviting, signing
// in and out. It is safe for concurrent use.
type Accounts struct {
	store         Store
	sessionTTL    time.Duration
	invitationTTL time.Duration
	now           func() time.Time
	log           *slog.Logger
	addrs         *addrGate
	onCheck       func()
	handles       knownHandles
}

// NewAccounts fills defaults.
func NewAccounts(cfg Config) *Accounts {
	if cfg.SessionTTL == 0 {
		cfg.SessionTTL = DefaultSessionTTL
	}
	if cfg.InvitationTTL == 0 {
		cfg.InvitationTTL = DefaultInvitationTTL
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Accounts{store: cfg.Store, sessionTTL: cfg.SessionTTL, invitationTTL: cfg.InvitationTTL,
		now: func() time.Time { return cfg.Now().UTC() }, log: cfg.Logger, addrs: newAddrGate(), onCheck: cfg.OnPasswordCheck}
}

// SessionTTL is how long a sign-in lasts.
func (a *Accounts) SessionTTL() time.Duration { return a.sessionTTL }

// InvitationTTL is how long an invitation link works.
func (a *Accounts) InvitationTTL() time.Duration { return a.invitationTTL }

func requireAdmin(ctx context.Context) error {
	if !board.PrincipalFrom(ctx).IsAdmin() {
		return board.Errorf(board.CodeForbidden, "only admins manage people and invitations; ask an admin")
	}
	return nil
}

func (a *Accounts) failure(err error) error {
	var e *board.Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return board.Errorf(board.CodeInternal, "the request was cancelled or ran out of time; check the result and try again")
	}
	a.log.Error("people store call failed", "err", err)
	return board.Errorf(board.CodeInternal, "storage failed (%v); try again", err)
}

// ValidatePassword checks a new password's length.
func ValidatePassword(pw string) error {
	n := len([]rune(pw))
	if n < MinPassword {
		return board.Errorf(board.CodeInvalid, "password must be at least %d characters", MinPassword)
	}
	if n > MaxPassword {
		return board.Errorf(board.CodeInvalid, "password must be at most %d characters", MaxPassword)
	}
	return nil
}

// AddPersonInput adds a person. Without Password the answer carries an
// invitation secret: the person sets their password through the link.
type AddPersonInput struct {
	Handle   string
	Name     string // default: the handle
	Role     board.Role
	Password *string
	// InvitationSecret, if set, is the invitation's secret (a NewSecret
	// the web form carried); a form submitted twice then answers the same
	// link instead of "exists already". Empty: a new secret.
	InvitationSecret string
}

// AddPerson creates a person (admins only). It returns the invitation's
// secret when no password was given, "" otherwise.
func (a *Accounts) AddPerson(ctx context.Context, in AddPersonInput) (string, error) {
	if err := requireAdmin(ctx); err != nil {
		return "", err
	}
	if err := board.ValidateHandle(in.Handle); err != nil {
		return "", board.InField("handle", err)
	}
	if in.Name == "" {
		in.Name = in.Handle
	}
	if err := board.ValidateDisplayName(in.Name); err != nil {
		return "", board.InField("name", err)
	}
	if in.Role == "" {
		in.Role = board.RoleMember
	}
	if err := board.ValidateRole(in.Role); err != nil {
		return "", err
	}
	now := a.now()
	p := board.Person{Handle: in.Handle, Name: in.Name, Role: in.Role, CreatedAt: now}
	var inv *board.Invitation
	var secret string
	if in.Password != nil {
		if err := ValidatePassword(*in.Password); err != nil {
			return "", err
		}
		hash, err := HashPassword(ctx, *in.Password)
		if err != nil {
			return "", a.failure(err)
		}
		p.PasswordHash = hash
	} else {
		secret = in.InvitationSecret
		if secret == "" {
			secret = NewSecret()
		} else if !wellFormedSecret(secret) {
			return "", board.Errorf(board.CodeInvalid, "the form's invitation secret is malformed; reload the page and submit again")
		}
		inv = &board.Invitation{TokenHash: HashSecret(secret), Handle: in.Handle, CreatedBy: board.PrincipalFrom(ctx).Author,
			CreatedAt: now, ExpiresAt: now.Add(a.invitationTTL)}
	}
	err := a.store.CreatePerson(ctx, p, inv)
	if errors.Is(err, board.ErrExists) && in.InvitationSecret != "" {
		// The same form again: its invitation exists, so this is a replay.
		if prev, gerr := a.store.GetInvitation(ctx, inv.TokenHash, now); gerr == nil && prev.Handle == in.Handle {
			return secret, nil
		}
	}
	if errors.Is(err, board.ErrExists) {
		return "", board.Errorf(board.CodeConflict, "a person with handle '%s' exists already; choose another handle, or invite them again to reset their password", in.Handle)
	}
	if err != nil {
		return "", a.failure(err)
	}
	return secret, nil
}

// Invite makes a new invitation for an existing person (admins only): a
// newcomer's lost link, or a password reset. It returns the secret: secret
// itself when given (a web form's, so a resubmitted form answers the same
// link), else a new one.
func (a *Accounts) Invite(ctx context.Context, handle, secret string) (string, error) {
	if err := requireAdmin(ctx); err != nil {
		return "", err
	}
	if err := board.ValidateHandle(handle); err != nil {
		return "", err
	}
	now := a.now()
	if secret == "" {
		secret = NewSecret()
	} else if !wellFormedSecret(secret) {
		return "", board.Errorf(board.CodeInvalid, "the form's invitation secret is malformed; reload the page and submit again")
	}
	err := a.store.CreateInvitation(ctx, board.Invitation{TokenHash: HashSecret(secret), Handle: handle,
		CreatedBy: board.PrincipalFrom(ctx).Author, CreatedAt: now, ExpiresAt: now.Add(a.invitationTTL)})
	if errors.Is(err, board.ErrNotFound) {
		return "", personNotFound(handle)
	}
	if err != nil {
		return "", a.failure(err)
	}
	return secret, nil
}

func personNotFound(handle string) error {
	return board.Errorf(board.CodeNotFound, "no person has the handle '%s'; see the list of people", handle)
}

// RevokeInvitation deletes an invitation by its hash (admins only).
func (a *Accounts) RevokeInvitation(ctx context.Context, tokenHash string) error {
	if err := requireAdmin(ctx); err != nil {
		return err
	}
	if err := a.store.DeleteInvitation(ctx, tokenHash); err != nil {
		return a.failure(err)
	}
	return nil
}

// Invitations lists the pending invitations (admins only).
func (a *Accounts) Invitations(ctx context.Context) ([]board.Invitation, error) {
	if err := requireAdmin(ctx); err != nil {
		return nil, err
	}
	out, err := a.store.ListInvitations(ctx, a.now())
	if err != nil {
		return nil, a.failure(err)
	}
	return out, nil
}

// People lists everyone (admins only).
func (a *Accounts) People(ctx context.Context) ([]board.Person, error) {
	if err := requireAdmin(ctx); err != nil {
		return nil, err
	}
	out, err := a.store.ListPeople(ctx)
	if err != nil {
		return nil, a.failure(err)
	}
	return out, nil
}

// Handles lists people's handles for choosing an owner; any
// person may read them.
func (a *Accounts) Handles(ctx context.Context) ([]string, error) {
	if board.PrincipalFrom(ctx).IsAI() {
		return nil, board.Errorf(board.CodeForbidden, "only people list people")
	}
	people, err := a.store.ListPeople(ctx)
	if err != nil {
		return nil, a.failure(err)
	}
	out := make([]string, 0, len(people))
	for _, p := range people {
		if !p.Disabled {
			out = append(out, p.Handle)
		}
	}
	return out, nil
}

// SetDisabled disables or re-enables a person (admins only). A disabled
// person's sessions stop working at once, on every instance: the resolver
// reads the person with each session. An admin cannot disable themselves,
// so a board always keeps the admin who could undo it.
func (a *Accounts) SetDisabled(ctx context.Context, handle string, disabled bool) error {
	if err := mayDisable(ctx, handle, disabled); err != nil {
		return err
	}
	ev := board.PersonEvent{Handle: handle, Type: board.PersonEnabled, Actor: board.PrincipalFrom(ctx).Author, At: a.now()}
	if disabled {
		ev.Type = board.PersonDisabled
	}
	err := a.store.SetPersonDisabled(ctx, handle, disabled, ev)
	if errors.Is(err, board.ErrNotFound) {
		return personNotFound(handle)
	}
	if err != nil {
		return a.failure(err)
	}
	return nil
}

// mayDisable refuses what SetDisabled refuses before it writes: a caller
// who is not an admin, a bad handle, an admin disabling themselves.
func mayDisable(ctx context.Context, handle string, disabled bool) error {
	if err := requireAdmin(ctx); err != nil {
		return err
	}
	if err := board.ValidateHandle(handle); err != nil {
		return err
	}
	if disabled && board.PrincipalFrom(ctx).Author == "human:"+handle {
		return board.Errorf(board.CodeInvalid, "you cannot disable yourself; ask another admin")
	}
	return nil
}

// CheckDisable refuses, without writing anything, what disabling handle
// would refuse (SetDisabled), and an unknown handle. The board asks "Disable
// alice?" only after it: a confirmation page is offered only for what the
// caller may do, so a member never sees one.
func (a *Accounts) CheckDisable(ctx context.Context, handle string) error {
	if err := mayDisable(ctx, handle, true); err != nil {
		return err
	}
	_, err := a.store.GetPerson(ctx, handle)
	if errors.Is(err, board.ErrNotFound) {
		return personNotFound(handle)
	}
	if err != nil {
		return a.failure(err)
	}
	return nil
}

// InvitationFor returns the pending invitation a secret names, for the page
// that sets the password; an unknown, used or expired one is not_found.
func (a *Accounts) InvitationFor(ctx context.Context, secret string) (board.Invitation, error) {
	if !wellFormedSecret(secret) {
		return board.Invitation{}, invitationGone()
	}
	inv, err := a.store.GetInvitation(ctx, HashSecret(secret), a.now())
	if errors.Is(err, board.ErrNotFound) {
		return inv, invitationGone()
	}
	if err != nil {
		return inv, a.failure(err)
	}
	// A link made before the person's last password reset or disable is
	// void (the store refuses to accept it too).
	p, err := a.store.GetPerson(ctx, inv.Handle)
	if errors.Is(err, board.ErrNotFound) || (err == nil && p.Voids(inv.CreatedAt)) {
		return board.Invitation{}, invitationGone()
	}
	if err != nil {
		return inv, a.failure(err)
	}
	return inv, nil
}

func invitationGone() error {
	return board.Errorf(board.CodeNotFound, "this invitation link has been used, has expired (links work for 7 days) or was revoked; ask an admin for a new one")
}

// AcceptInvitation sets the password the link was for, once, and signs
// the person in. Setting it ends every other session of the person and
// voids their other invitation links (an attacker who held a session or an
// older link loses it), and is recorded in the person's history.
func (a *Accounts) AcceptInvitation(ctx context.Context, secret, password string) (SignedIn, error) {
	if !wellFormedSecret(secret) {
		return SignedIn{}, invitationGone()
	}
	if err := ValidatePassword(password); err != nil {
		return SignedIn{}, err
	}
	hash, err := HashPassword(ctx, password)
	if err != nil {
		return SignedIn{}, a.failure(err)
	}
	now := a.now()
	p, err := a.store.AcceptInvitation(ctx, HashSecret(secret), hash, now)
	if errors.Is(err, board.ErrNotFound) {
		return SignedIn{}, invitationGone()
	}
	if err != nil {
		return SignedIn{}, a.failure(err)
	}
	return a.openSession(ctx, p, now)
}

// PersonHistory is a person's account history, newest first: who set a
// password, disabled or enabled the account, and when. Admins only.
func (a *Accounts) PersonHistory(ctx context.Context, handle string) ([]board.PersonEvent, error) {
	if board.PrincipalFrom(ctx).Role != board.RoleAdmin {
		return nil, board.Errorf(board.CodeForbidden, "only admins see a person's account history")
	}
	evs, err := a.store.ListPersonEvents(ctx, handle, board.MaxPersonEvents)
	if err != nil {
		return nil, a.failure(err)
	}
	return evs, nil
}
