package board

import (
	"context"
	"time"
)

// Moving connected agents (export --with-people): the grants a person
// approved, their live tokens (hashes only) and the clients the grants
// name, so that an agent keeps working against the new store with the
// tokens it holds. Authorization codes stay: they live minutes.

// OAuthMoveSource streams the grants and tokens a move carries, page by
// page, so an export holds one page at a time. Each method calls fn once
// per record and stops at fn's first error, returning it.
type OAuthMoveSource interface {
	// ExportOAuthGrants: every grant unrevoked and unexpired at now, in
	// any order. Revoked and expired grants can never be used again, so
	// they stay behind.
	ExportOAuthGrants(ctx context.Context, now time.Time, fn func(OAuthGrant) error) error
	// ExportOAuthTokens: every token unexpired at now, used refresh tokens
	// included (a second use of one after the move must still revoke its
	// grant), of any grant, in any order; the caller keeps the tokens of
	// the grants it moves.
	ExportOAuthTokens(ctx context.Context, now time.Time, fn func(OAuthToken) error) error
}

// OAuthMoveTarget puts moved grants and tokens into a store. Like
// BoardTarget's puts, each writes only when nothing is under the id and
// otherwise compares: AlreadyThere when the stored record is the same one
// (SameOAuthGrant, SameOAuthToken: its identity, not its use, which may
// have gone on in the target since an earlier run), Collision otherwise.
type OAuthMoveTarget interface {
	// PutOAuthGrant stores a grant as it is (revocation, last use and
	// expiry included); ErrNotFound when its person is not in the store.
	PutOAuthGrant(ctx context.Context, g OAuthGrant) (PutOutcome, error)
	// PutOAuthToken stores a token as it is (its use included);
	// ErrNotFound when its grant is not in the store.
	PutOAuthToken(ctx context.Context, t OAuthToken) (PutOutcome, error)
}

// SameOAuthGrant says whether two grants are the same approval: who, for
// which client, agent, resource and scope, made when. Its last use, expiry
// and revocation move on as it is used, so a grant an earlier run put and
// the agent has used since is still the same one.
func SameOAuthGrant(a, b OAuthGrant) bool {
	return a.ID == b.ID && a.ClientID == b.ClientID && a.ClientName == b.ClientName && a.Handle == b.Handle &&
		a.Agent == b.Agent && a.Resource == b.Resource && a.Scope == b.Scope && a.CreatedAt.Equal(b.CreatedAt)
}

// SameOAuthToken says whether two tokens are the same token of the same
// grant; its use (a refresh token exchanged since) is not compared.
func SameOAuthToken(a, b OAuthToken) bool {
	return a.Hash == b.Hash && a.GrantID == b.GrantID && a.Kind == b.Kind && a.CreatedAt.Equal(b.CreatedAt) &&
		a.ExpiresAt.Equal(b.ExpiresAt)
}

// OAuthMover is a store that can be the source and the target of a move of
// connected agents.
type OAuthMover interface {
	OAuthMoveSource
	OAuthMoveTarget
}
