package board

import (
	"strings"
	"time"
)

// MaxTokenLabel bounds an API token's label.
const MaxTokenLabel = 100

// APIToken is a bearer credential for scripts and agents (Claude Code's
// --header "Authorization: Bearer …", REST). It belongs to a person: it acts
// as that person (Agent empty, author human:<handle>) or as an agent acting
// for them (author ai:<Agent>, on behalf of human:<handle>). Only the
// SHA-256 of the secret is stored; the secret is shown once, when made.
type APIToken struct {
	// ID names the token in lists and revocations; it is not secret (the
	// first 16 hex digits of Hash, which tell nothing about the secret).
	ID     string
	Hash   string // hex SHA-256 of the whole token
	Handle string // the person it belongs to
	Agent  string // "" for the person themselves, else the agent's name (ai:<Agent>)
	Label  string
	// CreatedBy is the author who made it: the person, an admin, or the
	// operator of the admin commands.
	CreatedBy  string
	CreatedAt  time.Time
	LastUsedAt *time.Time // kept at a coarse granularity (auth.TokenTouchEvery)
	RevokedAt  *time.Time
}

// Author is who the token writes as: human:<handle> or ai:<agent>.
func (t APIToken) Author() string {
	if t.Agent == "" {
		return "human:" + t.Handle
	}
	return "ai:" + t.Agent
}

// Principal is the caller the token stands for, given its (enabled) person.
// An agent has no role, whoever it acts for: ai_policy applies to it, and
// it administers nothing.
func (t APIToken) Principal(p Person) Principal {
	pr := AgentPrincipal(t.Agent, p)
	if t.Agent == "" {
		pr = p.Principal("")
	}
	pr.Credential = Credential{Kind: CredentialToken, ID: t.ID, Handle: p.Handle}
	return pr
}

// AgentPrincipal is an agent named name acting for person p: the principal
// of an agent's API token and of an OAuth grant alike, (ai:<name>,
// human:<handle>), whose ledger namespace is that pair.
func AgentPrincipal(name string, p Person) Principal {
	return Principal{Author: "ai:" + name, OnBehalfOf: p.Author()}
}

// ValidateAgentName checks an agent's name, with or without its "ai:"
// prefix, and returns it without.
func ValidateAgentName(name string) (string, error) {
	name = strings.TrimPrefix(name, "ai:")
	if !isAIName("ai:" + name) {
		return "", invalid("agent name %q must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit (e.g. claude)", clip(name))
	}
	return name, nil
}

// ValidateTokenLabel checks a token's label: optional, one line, at most 100.
func ValidateTokenLabel(label string) error {
	if label == "" {
		return nil
	}
	if err := validateText("label", label, 0, MaxTokenLabel); err != nil {
		return err
	}
	return checkOneLine("label", label)
}
