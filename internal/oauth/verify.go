package oauth

import (
	"context"
	"errors"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// VerifyAccessToken is the resolver's BearerVerifier for OAuth access
// tokens. Every call reads the token with its grant and the grant's person
// (one request on DynamoDB once this instance knows whose the grant is):
// nothing of their state is cached, so a revoked grant or a disabled
// person stops the token at the next call on every instance.
// A token bound to another resource (another deployment, or /mcp only on
// /api/v1) is refused like an unknown one. The principal is the grant's:
// ai:<agent> acting for its person. Tokens are never logged; grant ids are.
func (s *Server) VerifyAccessToken(ctx context.Context, token string) (board.Principal, bool, error) {
	if !strings.HasPrefix(token, accessPrefix) {
		return board.Principal{}, false, nil
	}
	grantID, ok := parseToken(accessPrefix, token)
	if !ok {
		return board.Principal{}, true, auth.ErrBadCredential
	}
	// The token with its grant and (once this instance knows whose the
	// grant is) the grant's person: one read.
	f, p, err := s.cfg.Accounts.LookupCredential(ctx, board.CredentialLookup{Kind: board.CredentialGrant, ID: grantID, OAuthHash: auth.HashSecret(token)},
		func(f board.FoundCredential) string { return f.Grant.Handle })
	if errors.Is(err, auth.ErrBadCredential) {
		return board.Principal{}, true, auth.ErrBadCredential
	}
	if err != nil {
		s.log.Error("oauth: reading an access token, its grant or its person failed", "grant_id", grantID, "err", err)
		return board.Principal{}, true, err
	}
	t, g := f.OAuthToken, f.Grant
	now := s.now()
	if t.Kind != board.OAuthAccess || !now.Before(t.ExpiresAt) || g.RevokedAt != nil {
		return board.Principal{}, true, auth.ErrBadCredential
	}
	if req := auth.RequestFrom(ctx); req == nil || !s.audienceAllows(g.Resource, req.URL.Path) {
		s.log.Info("oauth: an access token for another resource was refused", "grant_id", g.ID, "resource", g.Resource)
		return board.Principal{}, true, auth.ErrBadCredential
	}
	if g.LastUsedAt == nil || !g.LastUsedAt.After(now.Add(-grantTouchEvery)) {
		if err := s.cfg.Store.TouchOAuthGrant(ctx, g.ID, now, now.Add(-grantTouchEvery)); err != nil {
			s.log.Warn("oauth: recording a grant's use failed", "grant_id", g.ID, "err", err)
		}
	}
	return g.Principal(p), true, nil
}
