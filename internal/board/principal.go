package board

import (
	"context"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/obs"
)

// Principal is who is calling, decided by the server from the credential or
// the local configuration, never from a tool argument.
type Principal struct {
	// Author is "human:<handle>" for a person, "ai:<name>" for an agent;
	// empty means writes are refused.
	Author string
	// OnBehalfOf is the person an agent acts for ("human:<handle>"), or
	// empty: a person acting themselves, or an agent configured locally.
	OnBehalfOf string
	// Role is the person's role when Author is a person; agents have none,
	// whoever they act for.
	Role   Role
	Source Source
	// Credential is what the caller proved itself with (none locally):
	// long work started by the call re-checks it (credential.go).
	Credential Credential
	// NoAuthorReason tells the caller how to get an author when Author is
	// empty (for example: which environment variable to set).
	NoAuthorReason string
}

// IsAI reports whether the principal is an AI agent, to whom ai_policy applies.
func (p Principal) IsAI() bool { return p.Author == "" || strings.HasPrefix(p.Author, "ai:") }

// IsAdmin reports whether the principal is a person with the admin role.
func (p Principal) IsAdmin() bool { return !p.IsAI() && p.Role == RoleAdmin }

// ledgerKeySeparator joins author and on_behalf_of in a ledger key. It occurs
// in neither (authors are human:<handle> or ai:<name>, whose characters are
// letters, digits and ":._-") nor in the DynamoDB key's own separator '#'.
const ledgerKeySeparator = "|"

// LedgerKey is the namespace of the caller's request_ids: the pair (author,
// on_behalf_of), so that alice's agent and bob's agent of the same name never
// see each other's requests. Without on_behalf_of it is the author alone,
// which is what every record written before people existed is keyed by, so
// those records keep replaying. This is the only place a key is built.
func (p Principal) LedgerKey() string {
	if p.OnBehalfOf == "" {
		return p.Author
	}
	return p.Author + ledgerKeySeparator + p.OnBehalfOf
}

// Display is how a history line names the principal: "ai:claude for
// human:alice", or the author alone.
func (p Principal) Display() string { return DisplayAuthor(p.Author, p.OnBehalfOf) }

// DisplayAuthor names an author and whom it acted for.
func DisplayAuthor(author, onBehalfOf string) string {
	if onBehalfOf == "" {
		return author
	}
	return author + " for " + onBehalfOf
}

type principalKey struct{}

// WithPrincipal attaches the caller to a context; adapters do this at the edge.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	obs.SetPrincipal(ctx, p.Author, p.OnBehalfOf) // for the request's log line
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the caller attached by WithPrincipal. Without one the
// caller is an anonymous AI: it may read what AI may read and write nothing.
func PrincipalFrom(ctx context.Context) Principal {
	p, _ := ctx.Value(principalKey{}).(Principal)
	return p
}
