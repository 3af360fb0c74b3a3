package oauth

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// CheckTransferredClient holds a client that arrives in a board file to the
// rules this server applies when it makes one itself: the redirect URIs
// registration and metadata documents accept (https, or http on
// loopback; at most ten), a metadata document's id the URL a fetch would
// accept, and an expiry no later than this server would give the record
// at now — a registered client's unused lifetime, a document's longest
// cache — so that a file cannot plant a client that is never fetched or
// checked again.
func CheckTransferredClient(c board.OAuthClient, now time.Time) error {
	if len(c.RedirectURIs) == 0 || len(c.RedirectURIs) > maxRedirectURIs {
		return fmt.Errorf("client %s has %d redirect URIs; a client has 1 to %d", clip(c.ID), len(c.RedirectURIs), maxRedirectURIs)
	}
	for _, r := range c.RedirectURIs {
		if err := checkRedirectURI(r); err != nil {
			return fmt.Errorf("client %s: %w", clip(c.ID), err)
		}
	}
	if c.URI != "" {
		u, err := url.Parse(c.URI)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || len(c.URI) > maxRedirectURILen {
			return fmt.Errorf("client %s: its uri %q is not an http or https URL of at most %d characters", clip(c.ID), clip(c.URI), maxRedirectURILen)
		}
	}
	longest := unusedClientTTL
	if c.Kind == board.OAuthClientMetadataDocument {
		if err := checkClientIDURL(c.ID); err != nil {
			return fmt.Errorf("client %s: %w", clip(c.ID), err)
		}
		if c.ExpiresAt.IsZero() {
			return errors.New("client " + clip(c.ID) + ": a metadata document's cached copy must expire (the server fetches it again then)")
		}
		longest = maxDocumentCache
	}
	if !c.ExpiresAt.IsZero() && c.ExpiresAt.After(now.Add(longest)) {
		return fmt.Errorf("client %s expires at %s, later than this server keeps such a record (%s from now)", clip(c.ID), c.ExpiresAt.Format(time.RFC3339), longest)
	}
	return nil
}
