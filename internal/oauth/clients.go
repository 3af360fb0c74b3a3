package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// errUnknownClient: no client has this id (never registered, forgotten, or
// a metadata document that could not be used). The token endpoint answers
// it with invalid_client, which tells a client to register again.
type errUnknownClient struct{ reason string }

func (e *errUnknownClient) Error() string { return e.reason }

// isDocumentID says whether a client_id names a metadata document.
func isDocumentID(id string) bool { return strings.HasPrefix(id, "https://") }

// client returns the client with id: a registered client from the store,
// or a metadata document from the store's copy while it is fresh, else
// fetched, checked and stored again. Errors are *errUnknownClient or a
// store failure.
func (s *Server) client(ctx context.Context, id string) (board.OAuthClient, error) {
	if id == "" {
		return board.OAuthClient{}, &errUnknownClient{"client_id is missing"}
	}
	if !isDocumentID(id) {
		if !strings.HasPrefix(id, clientPrefix) {
			return board.OAuthClient{}, &errUnknownClient{fmt.Sprintf("client_id %q is neither a client registered here (tlc_…) nor an https URL of a client ID metadata document", clip(id))}
		}
		c, err := s.cfg.Store.GetOAuthClient(ctx, id, s.now())
		if errors.Is(err, board.ErrNotFound) {
			return c, &errUnknownClient{fmt.Sprintf("client_id %q is not registered here (or its registration lapsed); the app should register again", clip(id))}
		}
		return c, err
	}
	if err := checkClientIDURL(id); err != nil {
		return board.OAuthClient{}, &errUnknownClient{err.Error()}
	}
	c, err := s.cfg.Store.GetOAuthClient(ctx, id, s.now())
	if err == nil {
		return c, nil
	}
	if !errors.Is(err, board.ErrNotFound) {
		return c, err
	}
	doc, cache, err := s.fetcher().fetch(ctx, id)
	if err != nil {
		detail := err
		var ff *fetchFailure
		if errors.As(err, &ff) {
			detail = ff.detail
		}
		s.log.Info("oauth: a client ID metadata document was refused", "client_id", id, "reason", err, "detail", detail)
		return c, &errUnknownClient{fmt.Sprintf("the client's metadata document at %s cannot be used: %v", clip(id), err)}
	}
	name := doc.ClientName
	if board.ValidateClientName(name) != nil || name == "" {
		u, _ := url.Parse(id)
		name = u.Hostname()
	}
	now := s.now()
	c = board.OAuthClient{ID: id, Kind: board.OAuthClientMetadataDocument, Name: name, RedirectURIs: doc.RedirectURIs,
		CreatedAt: now, ExpiresAt: now.Add(cache)}
	if u, err := url.Parse(doc.ClientURI); err == nil && (u.Scheme == "https" || u.Scheme == "http") && len(doc.ClientURI) <= maxRedirectURILen {
		c.URI = doc.ClientURI
	}
	if err := s.cfg.Store.PutOAuthClient(ctx, c); err != nil {
		return c, err
	}
	return c, nil
}
