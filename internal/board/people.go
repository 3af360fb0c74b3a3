package board

import (
	"strings"
	"time"
	"unicode"
)

// Role is what a person may administer.
type Role string

const (
	// RoleAdmin manages people, invitations and workspace settings
	// (ai_policy included).
	RoleAdmin Role = "admin"
	// RoleMember uses the board.
	RoleMember Role = "member"
)

// MaxDisplayName bounds a person's display name.
const MaxDisplayName = 100

// Person is someone who signs in to the board. PasswordHash is empty until
// the person has set a password (through an invitation).
type Person struct {
	Handle       string    `json:"handle"`
	Name         string    `json:"name"`
	Role         Role      `json:"role"`
	PasswordHash string    `json:"-"`
	Disabled     bool      `json:"disabled"`
	CreatedAt    time.Time `json:"created_at"`
	// CredentialsNotBefore voids every session and invitation of the
	// person made before it: setting a password and disabling move it to
	// that moment, so a reset ends the sessions an attacker may hold, and
	// enabling again revives none of them.
	CredentialsNotBefore time.Time `json:"-"`
}

// Voids says whether a session or invitation made at created is void for
// this person (made before the person's credentials were last reset).
func (p Person) Voids(created time.Time) bool {
	return created.Before(p.CredentialsNotBefore)
}

// PersonEventType names what happened to a person's account.
type PersonEventType string

const (
	// PersonPasswordSet: the person set a password through an invitation
	// link; their other sessions and invitations ended.
	PersonPasswordSet PersonEventType = "person.password_set"
	// PersonDisabled: an admin disabled the person; their sessions ended
	// for good.
	PersonDisabled PersonEventType = "person.disabled"
	// PersonEnabled: an admin enabled the person again (no session comes
	// back).
	PersonEnabled PersonEventType = "person.enabled"
)

// PersonEvent is one entry of a person's account history: who did what to
// the account, and when. It is written in the same transaction as the
// change it records.
type PersonEvent struct {
	Handle string          `json:"handle"`
	Type   PersonEventType `json:"type"`
	Actor  string          `json:"actor"`
	At     time.Time       `json:"at"`
}

// MaxPersonEvents is how many of a person's newest account events a read
// returns.
const MaxPersonEvents = 50

// Author is how the person appears in tickets and history: human:<handle>.
func (p Person) Author() string { return "human:" + p.Handle }

// Principal is the person acting themselves.
func (p Person) Principal(source Source) Principal {
	return Principal{Author: p.Author(), Role: p.Role, Source: source}
}

// ValidateHandle checks a person's handle: [a-z0-9][a-z0-9-]{0,39}.
func ValidateHandle(handle string) error {
	if handle == "" {
		return invalid("handle is required")
	}
	if !isSlug(handle) {
		return invalid("handle %q must be lowercase letters, digits and -, starting with a letter or digit, at most 40", clip(handle))
	}
	return nil
}

// ValidateDisplayName checks a display name: one line, 1-100 characters.
func ValidateDisplayName(name string) error {
	if err := validateText("name", name, 1, MaxDisplayName); err != nil {
		return err
	}
	if strings.TrimSpace(name) == "" || strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return invalid("name must be one line of visible text")
	}
	return nil
}

// ValidateRole checks a role value.
func ValidateRole(r Role) error {
	if r == RoleAdmin || r == RoleMember {
		return nil
	}
	return invalid("role %q is not one of admin, member", clip(string(r)))
}

// Session is a signed-in browser. Only the hash of its secret is stored,
// so a copy of the store signs no one in.
type Session struct {
	IDHash    string
	Handle    string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Invitation lets a person set their password once, before ExpiresAt. Only
// the hash of the link's secret is stored.
type Invitation struct {
	TokenHash string
	Handle    string
	CreatedBy string // author of the admin who made it
	CreatedAt time.Time
	ExpiresAt time.Time
}

// SignInAttempt is one reserved sign-in attempt: a random id (so a release
// frees only its own slot), when it was made, and until when the store keeps
// it.
type SignInAttempt struct {
	ID        string
	At        time.Time
	KeepUntil time.Time
}
