package oauth

import (
	"context"
	"errors"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Connected agents: a person's grants, as the board lists them, and their
// revocation. A person sees and revokes their own; another person's grant
// answers as if it did not exist. (To cut a person off entirely, an admin
// disables them: every grant of theirs stops at the next call.)

// Grants returns the signed-in person's active grants (unrevoked,
// unexpired), oldest first.
func (s *Server) Grants(ctx context.Context) ([]board.OAuthGrant, error) {
	handle, err := person(ctx)
	if err != nil {
		return nil, err
	}
	all, err := s.cfg.Store.ListOAuthGrants(ctx, handle, s.now())
	if err != nil {
		return nil, s.failure("listing grants", err)
	}
	out := all[:0]
	for _, g := range all {
		if g.RevokedAt == nil {
			out = append(out, g)
		}
	}
	return out, nil
}

// RevokeGrant revokes one of the signed-in person's grants: its tokens stop
// at the next call, on every instance.
func (s *Server) RevokeGrant(ctx context.Context, id string) (board.OAuthGrant, error) {
	handle, err := person(ctx)
	if err != nil {
		return board.OAuthGrant{}, err
	}
	gone := board.Errorf(board.CodeNotFound, "no connected agent has the id '%s'; see Connected agents", clip(id))
	if len(id) != grantIDLen || !isHex(id) {
		return board.OAuthGrant{}, gone
	}
	g, err := s.cfg.Store.GetOAuthGrant(ctx, id)
	if errors.Is(err, board.ErrNotFound) || (err == nil && g.Handle != handle) {
		return board.OAuthGrant{}, gone
	}
	if err != nil {
		return board.OAuthGrant{}, s.failure("reading a grant", err)
	}
	now := s.now()
	if err := s.cfg.Store.RevokeOAuthGrant(ctx, id, now); err != nil {
		return board.OAuthGrant{}, s.failure("revoking a grant", err)
	}
	if g.RevokedAt == nil {
		g.RevokedAt = &now
	}
	s.log.Info("oauth: grant revoked by its person", "grant_id", id, "person", handle)
	return g, nil
}
