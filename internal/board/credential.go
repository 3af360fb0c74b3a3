package board

import (
	"context"
	"errors"
)

// CredentialKind says what a caller proved itself with.
type CredentialKind string

const (
	// CredentialToken: an API token (ID is the token's id).
	CredentialToken CredentialKind = "token"
	// CredentialGrant: an OAuth access token (ID is its grant's id).
	CredentialGrant CredentialKind = "grant"
	// CredentialSession: a person signed in on the board (no ID: what is
	// re-checked is the person, see Credential).
	CredentialSession CredentialKind = "session"
)

// Credential names the credential a call was made with, so that work that
// outlives the call (an import) can ask later whether it still holds. The
// zero Credential is none: the local modes and the operator's commands,
// which nothing can revoke.
type Credential struct {
	Kind   CredentialKind `json:"kind,omitempty"`
	ID     string         `json:"id,omitempty"`
	Handle string         `json:"handle,omitempty"` // the person it belongs to
}

// CredentialStanding is what the Service reads to tell whether the
// credential a task was started with still stands: the token or grant and
// its person, as they are now (revoked ones included). The same reads are
// part of internal/auth's and internal/oauth's stores, which keep them.
type CredentialStanding interface {
	// GetToken returns an API token, revoked ones included, or ErrNotFound.
	GetToken(ctx context.Context, id string) (APIToken, error)
	// GetOAuthGrant returns a grant, revoked ones included, or ErrNotFound.
	GetOAuthGrant(ctx context.Context, id string) (OAuthGrant, error)
	// GetPerson returns a person, or ErrNotFound.
	GetPerson(ctx context.Context, handle string) (Person, error)
}

// credentialGone is why a task stopped when its credential no longer holds.
const credentialGone = "the credential that started it was revoked (API token revoked, app disconnected, person disabled or password reset)"

// credentialHolds reports whether the credential a task was started with
// still stands: the token or grant unrevoked and its person enabled. A
// session stands for its person: the task ends when the person is disabled
// or resets their password after it started (which ends every session of
// theirs), not when they merely sign out. A read failure is returned as an
// error (transient): the runner retries rather than guess.
func (s *Service) credentialHolds(ctx context.Context, t Task) (bool, error) {
	c := t.Credential
	switch c.Kind {
	case "":
		return true, nil
	case CredentialToken:
		tok, err := s.store.GetToken(ctx, c.ID)
		if errors.Is(err, ErrNotFound) || (err == nil && tok.RevokedAt != nil) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	case CredentialGrant:
		g, err := s.store.GetOAuthGrant(ctx, c.ID)
		if errors.Is(err, ErrNotFound) || (err == nil && g.RevokedAt != nil) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	case CredentialSession:
	default:
		return false, nil // a kind this version does not know cannot be checked
	}
	p, err := s.store.GetPerson(ctx, c.Handle)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return !p.Disabled && !(c.Kind == CredentialSession && p.Voids(t.CreatedAt)), nil
}

// stopRevoked ends a task whose credential no longer holds as cancelled,
// saying why.
func (s *Service) stopRevoked(ctx context.Context, t Task) (Task, error) {
	s.log.Info("an import's credential was revoked; the import stops", "task", t.ID, "credential", string(t.Credential.Kind)+":"+t.Credential.ID)
	return s.endTask(ctx, t, func(t *Task) {
		t.Status = TaskCancelled
		t.StopReason = credentialGone
	})
}
