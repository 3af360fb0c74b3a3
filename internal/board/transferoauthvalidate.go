package board

import (
	"net/url"
	"regexp"
	"strings"
)

// The checks an import applies to moved clients, grants and tokens: the
// shapes the authorization server writes (internal/oauth), so that nothing
// enters a store that it would not have made.

var (
	transferredHash     = regexp.MustCompile(`^[0-9a-f]{64}$`)
	transferredGrantID  = regexp.MustCompile(`^[0-9a-f]{16}$`)
	transferredClientID = regexp.MustCompile(`^tlc_[0-9a-f]{32}$`)
)

// maxTransferredURI bounds a client's URIs as registration does.
const maxTransferredURI = 2000

// ValidateTransferredOAuthClient checks a moved client: a registered one's id
// (tlc_…) or a metadata document's (an https URL), its kind matching, a
// name and at least one redirect URI.
func ValidateTransferredOAuthClient(c OAuthClient) error {
	switch c.Kind {
	case OAuthClientRegistered:
		if !transferredClientID.MatchString(c.ID) {
			return invalid("client id %q is not one this server registers (tlc_ and 32 hex digits)", clip(c.ID))
		}
	case OAuthClientMetadataDocument:
		if !isHTTPSURL(c.ID) {
			return invalid("client id %q of a metadata document must be an https URL", clip(c.ID))
		}
	default:
		return invalid("client kind %q must be %s or %s", clip(string(c.Kind)), OAuthClientRegistered, OAuthClientMetadataDocument)
	}
	if err := ValidateClientName(c.Name); err != nil {
		return err
	}
	if len(c.RedirectURIs) == 0 {
		return invalid("client %s has no redirect URI", clip(c.ID))
	}
	for _, u := range append([]string{c.URI}, c.RedirectURIs...) {
		if len(u) > maxTransferredURI {
			return invalid("client %s has a URI longer than %d characters", clip(c.ID), maxTransferredURI)
		}
	}
	if c.CreatedAt.IsZero() {
		return invalid("client %s has no created_at", clip(c.ID))
	}
	return nil
}

// ValidateTransferredOAuthGrant checks a moved grant: its id, client, person
// and agent, and an expiry after its creation.
func ValidateTransferredOAuthGrant(g OAuthGrant) error {
	if !transferredGrantID.MatchString(g.ID) {
		return invalid("grant id %q must be 16 hex digits", clip(g.ID))
	}
	if !transferredClientID.MatchString(g.ClientID) && !isHTTPSURL(g.ClientID) {
		return invalid("grant %s: client id %q is neither a registered client's (tlc_…) nor an https URL", g.ID, clip(g.ClientID))
	}
	if err := ValidateClientName(g.ClientName); err != nil {
		return err
	}
	if err := ValidateHandle(g.Handle); err != nil {
		return err
	}
	if name, err := ValidateAgentName(g.Agent); err != nil || name != g.Agent {
		return invalid("grant %s: agent %q is not an agent's name", g.ID, clip(g.Agent))
	}
	if !isHTTPURL(g.Resource) {
		return invalid("grant %s: resource %q must be the server's URL", g.ID, clip(g.Resource))
	}
	if len(g.Scope) > maxTransferredURI {
		return invalid("grant %s: scope is longer than %d characters", g.ID, maxTransferredURI)
	}
	if g.CreatedAt.IsZero() || !g.ExpiresAt.After(g.CreatedAt) {
		return invalid("grant %s must expire after it was created", g.ID)
	}
	return nil
}

// ValidateTransferredOAuthToken checks a moved token: a hash (never a token),
// its grant's id, its kind, an expiry after its creation.
func ValidateTransferredOAuthToken(t OAuthToken) error {
	if !transferredHash.MatchString(t.Hash) {
		return invalid("a token's hash must be 64 hex digits (an export holds hashes, never tokens)")
	}
	if !transferredGrantID.MatchString(t.GrantID) {
		return invalid("token %s…: grant id %q must be 16 hex digits", t.Hash[:8], clip(t.GrantID))
	}
	if t.Kind != OAuthAccess && t.Kind != OAuthRefresh {
		return invalid("token %s…: kind %q must be %s or %s", t.Hash[:8], clip(string(t.Kind)), OAuthAccess, OAuthRefresh)
	}
	if t.CreatedAt.IsZero() || !t.ExpiresAt.After(t.CreatedAt) {
		return invalid("token %s… must expire after it was created", t.Hash[:8])
	}
	return nil
}

func isHTTPSURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "https" && u.Host != "" && len(s) <= maxTransferredURI
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && len(s) <= maxTransferredURI &&
		!strings.ContainsAny(s, " \n")
}
