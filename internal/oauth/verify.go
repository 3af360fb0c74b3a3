package oauth

import (
	"context"
	"errors"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// VerifyAccessToken is the resolver's BearerVerifier for OAuth access
// tokens. Every call reads the token with its grant (one request on
// DynamoDB) and the grant's person: nothing is cached, so a revoked grant
// or a disabled person stops the token at the next call on every instance.
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
	t, g, err := s.cfg.Store.GetOAuthToken(ctx, grantID, auth.HashSecret(token))
	if errors.Is(err, board.ErrNotFound) {
		return board.Principal{}, true, auth.ErrBadCredential
	}
	if err != nil {
		s.log.Error("oauth: reading an access token failed", "grant_id", grantID, "err", err)
		return board.Principal{}, true, err
	}
	now := s.now()
	if t.Kind != board.OAuthAccess || !now.Before(t.ExpiresAt) || g.RevokedAt != nil {
		return board.Principal{}, true, auth.ErrBadCredential
	}
	if req := auth.RequestFrom(ctx); req == nil || !s.audienceAllows(g.Resource, req.URL.Path) {
		s.log.Info("oauth: an access token for another resource was refused", "grant_id", g.ID, "resource", g.Resource)
		return board.Principal{}, true, auth.ErrBadCredential
	}
	p, err := s.cfg.Accounts.ActivePerson(ctx, g.Handle)
	if errors.Is(err, auth.ErrBadCredential) {
		return board.Principal{}, true, auth.ErrBadCredential
	}
	if err != nil {
		s.log.Error("oauth: reading a grant's person failed", "grant_id", g.ID, "err", err)
		return board.Principal{}, true, err
	}
	if g.LastUsedAt == nil || !g.LastUsedAt.After(now.Add(-grantTouchEvery)) {
		if err := s.cfg.Store.TouchOAuthGrant(ctx, g.ID, now, now.Add(-grantTouchEvery)); err != nil {
			s.log.Warn("oauth: recording a grant's use failed", "grant_id", g.ID, "err", err)
		}
	}
	return g.Principal(p), true, nil
}
