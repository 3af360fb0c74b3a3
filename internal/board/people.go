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
}

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
