package oauth

import (
	"errors"
	"net/http"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Revocation (RFC 7009). Revoking an access or a refresh token revokes its
// grant: every token of the connection stops at the next call, on every
// instance (each call reads the grant). A token that is unknown, malformed
// or revoked already is answered 200 as the RFC asks, so the answer tells
// nothing about tokens. A client that names itself must be the token's.

func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	form, clientID, oerr := s.tokenRequest(w, r)
	if oerr != nil {
		writeError(w, oerr)
		return
	}
	token := form.Get("token")
	if token == "" {
		writeError(w, badRequest(errInvalidRequest, "token is missing"))
		return
	}
	if hint := form.Get("token_type_hint"); hint != "" && hint != "access_token" && hint != "refresh_token" {
		writeError(w, badRequest(errUnsupportedTokenType, "token_type_hint must be access_token or refresh_token"))
		return
	}
	grantID, ok := parseToken(accessPrefix, token)
	if !ok {
		grantID, ok = parseToken(refreshPrefix, token)
	}
	if !ok {
		w.WriteHeader(http.StatusOK)
		return
	}
	ctx := r.Context()
	_, g, err := s.cfg.Store.GetOAuthToken(ctx, grantID, auth.HashSecret(token))
	if errors.Is(err, board.ErrNotFound) {
		w.WriteHeader(http.StatusOK)
		return
	}
	if err != nil {
		writeError(w, s.serverError("reading a token to revoke", err))
		return
	}
	if clientID != "" && clientID != g.ClientID {
		writeError(w, badRequest(errUnauthorizedClient, "this token was issued to another client"))
		return
	}
	if err := s.cfg.Store.RevokeOAuthGrant(ctx, g.ID, s.now()); err != nil && !errors.Is(err, board.ErrNotFound) {
		writeError(w, s.serverError("revoking a grant", err))
		return
	}
	s.log.Info("oauth: grant revoked by its client", "grant_id", g.ID, "client_id", g.ClientID)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}
