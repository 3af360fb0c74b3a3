package boardfile

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// exportAgents writes the connected agents after the people: every grant
// that can still be used at now with the client it names (each client
// once, before its first grant), then those grants' tokens unexpired at
// now. Left out: revoked and expired grants (never usable again), the
// grants of a registered client that is gone (the token endpoint would
// refuse them), a metadata document's cached copy once it has expired (the
// target fetches the document again; its grants still move), and
// authorization codes (they live minutes). Memory holds the ids of the
// moved grants and clients, never the tokens.
func exportAgents(ctx context.Context, src Source, e *encoder, now time.Time) error {
	grants := map[string]bool{}
	clients := map[string]bool{} // written, or known to be left out
	err := src.TransferOAuthGrants(ctx, now, func(g board.OAuthGrant) error {
		if !clients[g.ClientID] {
			c, err := src.GetOAuthClient(ctx, g.ClientID, now)
			switch {
			case errors.Is(err, board.ErrNotFound) && !isDocumentID(g.ClientID):
				return nil // a registered client that is gone: its grant cannot be used
			case errors.Is(err, board.ErrNotFound):
				clients[g.ClientID] = true
			case err != nil:
				return fmt.Errorf("reading client %s: %w", g.ClientID, err)
			default:
				clients[g.ClientID] = true
				if err := e.write(line{Kind: KindOAuthClient, OAuthClient: clientOf(c)}); err != nil {
					return err
				}
			}
		}
		grants[g.ID] = true
		return e.write(line{Kind: KindOAuthGrant, OAuthGrant: grantOf(g)})
	})
	if err != nil {
		return fmt.Errorf("exporting OAuth grants: %w", err)
	}
	if len(grants) == 0 {
		return nil
	}
	err = src.TransferOAuthTokens(ctx, now, func(t board.OAuthToken) error {
		if !grants[t.GrantID] {
			return nil
		}
		return e.write(line{Kind: KindOAuthToken, OAuthToken: oauthTokenOf(t)})
	})
	if err != nil {
		return fmt.Errorf("exporting OAuth tokens: %w", err)
	}
	return nil
}

// isDocumentID says whether a client id names a client ID metadata
// document (internal/oauth: an https URL) rather than a registered client.
func isDocumentID(id string) bool { return strings.HasPrefix(id, "https://") }
