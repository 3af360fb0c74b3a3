package boardfile

import (
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The lines of connected agents. Tokens are moved as the hashes the
// stores keep, never as tokens: a file gives no one a credential.

// transferredClient is an OAuth client a moved grant names.
type transferredClient struct {
	ID           string                `json:"id"`
	Kind         board.OAuthClientKind `json:"kind"`
	Name         string                `json:"name"`
	URI          string                `json:"uri,omitempty"`
	RedirectURIs []string              `json:"redirect_uris"`
	CreatedAt    time.Time             `json:"created_at"`
	ExpiresAt    time.Time             `json:"expires_at,omitzero"`
}

func clientOf(c board.OAuthClient) *transferredClient {
	return &transferredClient{ID: c.ID, Kind: c.Kind, Name: c.Name, URI: c.URI, RedirectURIs: c.RedirectURIs,
		CreatedAt: c.CreatedAt, ExpiresAt: c.ExpiresAt}
}

func (m transferredClient) client() board.OAuthClient {
	return board.OAuthClient{ID: m.ID, Kind: m.Kind, Name: m.Name, URI: m.URI, RedirectURIs: m.RedirectURIs,
		CreatedAt: m.CreatedAt, ExpiresAt: m.ExpiresAt}
}

// transferredGrant is a person's grant to a client, as an agent.
type transferredGrant struct {
	ID         string     `json:"id"`
	ClientID   string     `json:"client_id"`
	ClientName string     `json:"client_name,omitempty"`
	Handle     string     `json:"handle"`
	Agent      string     `json:"agent"`
	Resource   string     `json:"resource"`
	Scope      string     `json:"scope,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  time.Time  `json:"expires_at"`
	LastUsedAt *time.Time `json:"last_used_at,omitempty"`
	RevokedAt  *time.Time `json:"revoked_at,omitempty"`
}

func grantOf(g board.OAuthGrant) *transferredGrant {
	return &transferredGrant{ID: g.ID, ClientID: g.ClientID, ClientName: g.ClientName, Handle: g.Handle, Agent: g.Agent,
		Resource: g.Resource, Scope: g.Scope, CreatedAt: g.CreatedAt, ExpiresAt: g.ExpiresAt, LastUsedAt: g.LastUsedAt, RevokedAt: g.RevokedAt}
}

func (m transferredGrant) grant() board.OAuthGrant {
	return board.OAuthGrant{ID: m.ID, ClientID: m.ClientID, ClientName: m.ClientName, Handle: m.Handle, Agent: m.Agent,
		Resource: m.Resource, Scope: m.Scope, CreatedAt: m.CreatedAt, ExpiresAt: m.ExpiresAt, LastUsedAt: m.LastUsedAt, RevokedAt: m.RevokedAt}
}

// transferredOAuthToken is an access or refresh token of a grant: its hash.
type transferredOAuthToken struct {
	Hash      string               `json:"hash"`
	GrantID   string               `json:"grant_id"`
	Kind      board.OAuthTokenKind `json:"kind"`
	CreatedAt time.Time            `json:"created_at"`
	ExpiresAt time.Time            `json:"expires_at"`
	UsedAt    *time.Time           `json:"used_at,omitempty"`
}

func oauthTokenOf(t board.OAuthToken) *transferredOAuthToken {
	return &transferredOAuthToken{Hash: t.Hash, GrantID: t.GrantID, Kind: t.Kind, CreatedAt: t.CreatedAt, ExpiresAt: t.ExpiresAt, UsedAt: t.UsedAt}
}

func (m transferredOAuthToken) token() board.OAuthToken {
	return board.OAuthToken{Hash: m.Hash, GrantID: m.GrantID, Kind: m.Kind, CreatedAt: m.CreatedAt, ExpiresAt: m.ExpiresAt, UsedAt: m.UsedAt}
}
