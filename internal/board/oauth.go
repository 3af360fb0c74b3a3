package board

import (
	"errors"
	"time"
)

// The authorization server's records (docs/oauth.md). Secrets (codes,
// access and refresh tokens) are never stored: each is kept under the
// SHA-256 of its value, like API tokens and sessions.

// OAuthClientKind says how a client became known.
type OAuthClientKind string

const (
	// OAuthClientRegistered: registered by the client itself through
	// dynamic client registration (RFC 7591); nobody vouches for it.
	OAuthClientRegistered OAuthClientKind = "registered"
	// OAuthClientMetadataDocument: its client_id is an https URL whose
	// client ID metadata document was fetched; the record is a cached copy.
	OAuthClientMetadataDocument OAuthClientKind = "metadata_document"
)

// OAuthClient is a client that may ask a person for a grant.
type OAuthClient struct {
	// ID is the client_id: "tlc_…" for a registered client, the document's
	// URL for a metadata document.
	ID           string
	Kind         OAuthClientKind
	Name         string // client_name, as the client says (shown as such)
	URI          string // client_uri, optional
	RedirectURIs []string
	CreatedAt    time.Time
	// ExpiresAt: when the record stops counting (a registered client never
	// used for a grant; a metadata document's cache lifetime). Zero: never.
	ExpiresAt time.Time
}

// OAuthCode is an authorization code: what a person approved, until the
// client exchanges it (once) for the grant's first tokens.
type OAuthCode struct {
	Hash        string // hex SHA-256 of the code
	ClientID    string
	ClientName  string
	RedirectURI string
	// Challenge is the PKCE S256 code_challenge.
	Challenge string
	// Resource is the audience the tokens will be bound to (RFC 8707).
	Resource string
	Scope    string // as requested; recorded, not used to limit
	Handle   string // the person who approved
	Agent    string // the agent's name: the grant acts as ai:<Agent> for the person
	// GrantID is the grant the code creates, chosen when it is issued, so
	// that a second use can revoke what the first made.
	GrantID   string
	CreatedAt time.Time
	ExpiresAt time.Time
	UsedAt    *time.Time
}

// OAuthGrant is a person's approval of a client, acting as an agent for
// them. Its refresh tokens form one family: a reused one revokes the grant.
type OAuthGrant struct {
	ID         string // 16 hex digits; part of every token of the grant
	ClientID   string
	ClientName string
	Handle     string
	Agent      string
	Resource   string
	Scope      string
	CreatedAt  time.Time
	// ExpiresAt is when its newest refresh token expires: after it the
	// grant can never be used again (a store may forget it then).
	ExpiresAt  time.Time
	LastUsedAt *time.Time // kept at a coarse granularity, like an API token's
	RevokedAt  *time.Time
}

// Principal is the agent the grant acts as, for its (enabled) person:
// (ai:<agent>, human:<handle>), the same namespace an agent's API token has.
func (g OAuthGrant) Principal(p Person) Principal {
	pr := AgentPrincipal(g.Agent, p)
	pr.Credential = Credential{Kind: CredentialGrant, ID: g.ID, Handle: p.Handle}
	return pr
}

// OAuthTokenKind tells access tokens from refresh tokens.
type OAuthTokenKind string

const (
	// OAuthAccess is a short-lived bearer token a client sends with each
	// request.
	OAuthAccess OAuthTokenKind = "access"
	// OAuthRefresh is exchanged for a new access token; each use rotates it.
	OAuthRefresh OAuthTokenKind = "refresh"
)

// OAuthToken is an access or refresh token of a grant.
type OAuthToken struct {
	Hash      string // hex SHA-256 of the whole token
	GrantID   string
	Kind      OAuthTokenKind
	CreatedAt time.Time
	ExpiresAt time.Time
	// UsedAt is when a refresh token was exchanged for the next ones; a
	// second exchange is a reuse.
	UsedAt *time.Time
}

// OAuthRedemption is what exchanging a code commits: the code used up, the
// grant and its first tokens.
type OAuthRedemption struct {
	CodeHash string
	Grant    OAuthGrant
	Tokens   []OAuthToken
	// KeepClient, if set, names a registered client that must still exist
	// and stops expiring: a client with a grant is kept for good.
	KeepClient string
	Now        time.Time
}

// OAuthRotation is what a refresh commits: the presented refresh token
// used, the next access and refresh tokens, the grant's new expiry.
type OAuthRotation struct {
	GrantID        string
	UsedHash       string
	Next           []OAuthToken
	GrantExpiresAt time.Time
	Now            time.Time
}

// MaxClientName bounds a client's name as the board shows it.
const MaxClientName = 100

// ValidateClientName checks a client's name (client_name): optional, one
// line, at most MaxClientName characters.
func ValidateClientName(name string) error {
	if name == "" {
		return nil
	}
	if err := validateText("client_name", name, 0, MaxClientName); err != nil {
		return err
	}
	return checkOneLine("client_name", name)
}

// ErrUsed is returned when a code or refresh token was used already (or,
// for a refresh, its grant was revoked) by the time a change committed.
var ErrUsed = errors.New("already used")
