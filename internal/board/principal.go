package board

import (
	"context"
	"strings"
)

// Principal is who is calling, decided by the server from the credential or
// the local configuration, never from a tool argument.
type Principal struct {
	// Author is "human" or "ai:<name>"; empty means writes are refused.
	Author string
	Source Source
	// NoAuthorReason tells the caller how to get an author when Author is
	// empty (for example: which environment variable to set).
	NoAuthorReason string
}

// IsAI reports whether the principal is an AI agent, to whom ai_policy applies.
func (p Principal) IsAI() bool { return p.Author == "" || strings.HasPrefix(p.Author, "ai:") }

type principalKey struct{}

// WithPrincipal attaches the caller to a context; adapters do this at the edge.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the caller attached by WithPrincipal. Without one the
// caller is an anonymous AI: it may read what AI may read and write nothing.
func PrincipalFrom(ctx context.Context) Principal {
	p, _ := ctx.Value(principalKey{}).(Principal)
	return p
}
