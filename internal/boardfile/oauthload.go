package boardfile

import (
	"errors"
	"fmt"
	"slices"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/oauth"
)

// Connected agents go in after the people: a client (through the store's
// own PutOAuthClient, when the target has none unexpired under its id),
// then its grants, then the grants' tokens (PutOAuthGrant, PutOAuthToken:
// only when absent). What can no longer be used by the import's clock is
// skipped: expired grants and tokens, and a metadata document's client
// whose cached copy expired (the target fetches the document again). A
// grant goes in only for a person the file wrote or matches (people.go),
// a token only for a grant the file put or found as it has it.

func (im *loader) putAgent(l *line) error {
	switch l.Kind {
	case KindOAuthClient:
		if l.OAuthClient == nil {
			return errors.New("an oauth_client line without the client")
		}
		return im.putClient(l.OAuthClient.client())
	case KindOAuthGrant:
		if l.OAuthGrant == nil {
			return errors.New("an oauth_grant line without the grant")
		}
		return im.putGrant(l.OAuthGrant.grant())
	default:
		if l.OAuthToken == nil {
			return errors.New("an oauth_token line without the token")
		}
		return im.putOAuthToken(l.OAuthToken.token())
	}
}

func (im *loader) putClient(c board.OAuthClient) error {
	if err := board.ValidateTransferredOAuthClient(c); err != nil {
		return err
	}
	if err := oauth.CheckTransferredClient(c, im.opts.Now); err != nil {
		return err
	}
	if !c.ExpiresAt.IsZero() && !c.ExpiresAt.After(im.opts.Now) {
		im.skip(KindOAuthClient)
		return nil
	}
	have, err := im.dst.GetOAuthClient(im.ctx, c.ID, im.opts.Now)
	switch {
	case errors.Is(err, board.ErrNotFound):
		if err := im.dst.PutOAuthClient(im.ctx, c); err != nil {
			return fmt.Errorf("client %s: %w", c.ID, err)
		}
		return im.count(KindOAuthClient, c.ID, board.Added, im.lines.n)
	case err != nil:
		return fmt.Errorf("client %s: %w", c.ID, err)
	}
	// A metadata document's record is a cached copy: the target's own,
	// fetched since, is as good as the file's.
	same := have.Kind == c.Kind && (c.Kind == board.OAuthClientMetadataDocument ||
		have.Name == c.Name && have.URI == c.URI && slices.Equal(have.RedirectURIs, c.RedirectURIs) && have.CreatedAt.Equal(c.CreatedAt))
	return im.count(KindOAuthClient, c.ID, outcomeOf(same), im.lines.n)
}

func (im *loader) putGrant(g board.OAuthGrant) error {
	if err := board.ValidateTransferredOAuthGrant(g); err != nil {
		return err
	}
	if !g.ExpiresAt.After(im.opts.Now) {
		im.grantsOut[g.ID] = true
		im.skip(KindOAuthGrant)
		return nil
	}
	if owned, err := im.ownedBy(KindOAuthGrant, g.ID, g.Handle); !owned {
		im.grantsOut[g.ID] = true
		return err
	}
	if !isDocumentID(g.ClientID) {
		// A registered client is the token endpoint's to check: a grant
		// whose client the target lacks could never be refreshed.
		if _, err := im.dst.GetOAuthClient(im.ctx, g.ClientID, im.opts.Now); errors.Is(err, board.ErrNotFound) {
			return fmt.Errorf("grant %s: its client %s is not in the target store (a client's line comes before its grants)", g.ID, g.ClientID)
		} else if err != nil {
			return fmt.Errorf("grant %s: %w", g.ID, err)
		}
	}
	out, err := im.dst.PutOAuthGrant(im.ctx, g)
	if errors.Is(err, board.ErrNotFound) {
		return fmt.Errorf("grant %s: its person %s is not in the target store (people come before grants)", g.ID, g.Handle)
	}
	if err != nil {
		return fmt.Errorf("grant %s: %w", g.ID, err)
	}
	if out == board.Collision {
		im.grantsOut[g.ID] = true
	} else {
		im.grantsIn[g.ID] = true
	}
	return im.count(KindOAuthGrant, g.ID, out, im.lines.n)
}

func (im *loader) putOAuthToken(t board.OAuthToken) error {
	if err := board.ValidateTransferredOAuthToken(t); err != nil {
		return err
	}
	if im.grantsOut[t.GrantID] || !t.ExpiresAt.After(im.opts.Now) {
		im.skip(KindOAuthToken)
		return nil
	}
	if !im.grantsIn[t.GrantID] {
		// A token of a grant the file does not carry would be a new
		// credential of whoever holds that grant in the target.
		return fmt.Errorf("OAuth token %s…: its grant %s has no line before it in this file (an export lists every grant before its tokens)", t.Hash[:8], t.GrantID)
	}
	out, err := im.dst.PutOAuthToken(im.ctx, t)
	if errors.Is(err, board.ErrNotFound) {
		return fmt.Errorf("OAuth token %s…: its grant %s is not in the target store (a grant's line comes before its tokens)", t.Hash[:8], t.GrantID)
	}
	if err != nil {
		return fmt.Errorf("OAuth token %s…: %w", t.Hash[:8], err)
	}
	return im.count(KindOAuthToken, t.Hash[:8]+"…", out, im.lines.n)
}
