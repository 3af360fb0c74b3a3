package oauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The token endpoint (RFC 6749 §3.2, OAuth 2.1): the authorization_code
// grant with PKCE, and the refresh_token grant with rotation. Clients are
// public: they identify with client_id and prove nothing else; a secret
// they send is refused (none was ever issued). An unknown client is
// invalid_client (401), which makes a client such as Claude register
// again; anything wrong with the code or refresh token is invalid_grant.

type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope,omitempty"`
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	form, clientID, oerr := s.tokenRequest(w, r)
	if oerr == nil && clientID == "" {
		oerr = newError(http.StatusUnauthorized, errInvalidClient, "client_id is missing")
	}
	if oerr == nil {
		var resp tokenResponse
		switch form.Get("grant_type") {
		case "authorization_code":
			resp, oerr = s.exchangeCode(r.Context(), form, clientID)
		case "refresh_token":
			resp, oerr = s.refresh(r.Context(), form, clientID)
		case "":
			oerr = badRequest(errInvalidRequest, "grant_type is missing")
		default:
			oerr = badRequest(errUnsupportedGrantType, fmt.Sprintf("grant_type %q is not offered; use authorization_code or refresh_token", clip(form.Get("grant_type"))))
		}
		if oerr == nil {
			writeJSON(w, http.StatusOK, resp)
			return
		}
	}
	writeError(w, oerr)
}

// tokenRequest reads a form POST (token or revocation endpoint) and the
// client it comes from ("" if it does not say): client_id in the body or,
// for clients that insist, in HTTP Basic with an empty password.
func (s *Server) tokenRequest(w http.ResponseWriter, r *http.Request) (url.Values, string, *oauthError) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST, OPTIONS")
		return nil, "", newError(http.StatusMethodNotAllowed, errInvalidRequest, "use POST with a form body")
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/x-www-form-urlencoded" {
		return nil, "", badRequest(errInvalidRequest, "send the parameters as application/x-www-form-urlencoded")
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		return nil, "", badRequest(errInvalidRequest, "the form cannot be read: "+err.Error())
	}
	form := r.PostForm
	for k, vs := range form {
		if len(vs) > 1 {
			return nil, "", badRequest(errInvalidRequest, k+" appears more than once")
		}
	}
	clientID := form.Get("client_id")
	if user, pass, ok := r.BasicAuth(); ok {
		id, err := url.QueryUnescape(user)
		if err != nil {
			id = user
		}
		if pass != "" {
			return nil, "", newError(http.StatusUnauthorized, errInvalidClient, "clients here are public and have no secret; send client_id alone")
		}
		if clientID != "" && clientID != id {
			return nil, "", badRequest(errInvalidRequest, "client_id in the body and in the Authorization header differ")
		}
		clientID = id
	}
	if form.Get("client_secret") != "" {
		return nil, "", newError(http.StatusUnauthorized, errInvalidClient, "clients here are public and have no secret; send client_id alone")
	}
	return form, clientID, nil
}

// knownClient checks that the client still exists: a registered one in the
// store; a metadata document's id was checked when the code was issued
// (the code or grant names it).
func (s *Server) knownClient(ctx context.Context, clientID string) *oauthError {
	if isDocumentID(clientID) {
		if checkClientIDURL(clientID) != nil {
			return newError(http.StatusUnauthorized, errInvalidClient, "client_id is not a valid client ID metadata document URL")
		}
		return nil
	}
	if _, err := s.cfg.Store.GetOAuthClient(ctx, clientID, s.now()); err != nil {
		if errors.Is(err, board.ErrNotFound) {
			return newError(http.StatusUnauthorized, errInvalidClient, "this client_id is not registered here (or no longer); register again")
		}
		return s.serverError("reading a client", err)
	}
	return nil
}

func (s *Server) serverError(what string, err error) *oauthError {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return newError(http.StatusServiceUnavailable, errTemporarilyUnavailable, "the request was cancelled or ran out of time; try again")
	}
	return newError(http.StatusInternalServerError, errServerError, s.failure(what, err).Error())
}

// verifierMatches checks a PKCE code_verifier against an S256 challenge.
func verifierMatches(verifier, challenge string) bool {
	sum := sha256.Sum256([]byte(verifier))
	return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) == 1
}

// validVerifier: 43 to 128 unreserved characters (RFC 7636 §4.1).
func validVerifier(v string) bool {
	if len(v) < 43 || len(v) > 128 {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

// newTokens makes an access and a refresh token of the grant.
func (s *Server) newTokens(grantID string, now time.Time) (access, refresh string, records []board.OAuthToken, refreshExpires time.Time) {
	access, refresh = newToken(accessPrefix, grantID), newToken(refreshPrefix, grantID)
	refreshExpires = now.Add(s.cfg.RefreshTTL)
	records = []board.OAuthToken{
		{Hash: auth.HashSecret(access), GrantID: grantID, Kind: board.OAuthAccess, CreatedAt: now, ExpiresAt: now.Add(s.cfg.AccessTTL)},
		{Hash: auth.HashSecret(refresh), GrantID: grantID, Kind: board.OAuthRefresh, CreatedAt: now, ExpiresAt: refreshExpires},
	}
	return
}

func (s *Server) response(access, refresh, scope string) tokenResponse {
	return tokenResponse{AccessToken: access, TokenType: "Bearer", ExpiresIn: int64(s.cfg.AccessTTL / time.Second),
		RefreshToken: refresh, Scope: scope}
}

// revokeFamily revokes a grant because one of its codes or refresh tokens
// was used twice: someone else may hold it.
func (s *Server) revokeFamily(ctx context.Context, grantID, why string) {
	if err := s.cfg.Store.RevokeOAuthGrant(ctx, grantID, s.now()); err != nil && !errors.Is(err, board.ErrNotFound) {
		s.log.Error("oauth: revoking a grant after a reuse failed", "grant_id", grantID, "err", err)
		return
	}
	s.log.Warn("oauth: grant revoked: "+why, "grant_id", grantID)
}

// exchangeCode redeems an authorization code.
func (s *Server) exchangeCode(ctx context.Context, form url.Values, clientID string) (tokenResponse, *oauthError) {
	if e := s.knownClient(ctx, clientID); e != nil {
		return tokenResponse{}, e
	}
	code := form.Get("code")
	if code == "" {
		return tokenResponse{}, badRequest(errInvalidRequest, "code is missing")
	}
	gone := badRequest(errInvalidGrant, "the authorization code is unknown, expired or used; start the authorization again")
	if !wellFormedCode(code) {
		return tokenResponse{}, gone
	}
	now := s.now()
	hash := auth.HashSecret(code)
	c, err := s.cfg.Store.GetOAuthCode(ctx, hash, now)
	if errors.Is(err, board.ErrNotFound) {
		return tokenResponse{}, gone
	}
	if err != nil {
		return tokenResponse{}, s.serverError("reading an authorization code", err)
	}
	if c.UsedAt != nil {
		// RFC 6749 §4.1.2: a code used twice revokes what it gave.
		s.revokeFamily(ctx, c.GrantID, "its authorization code was used twice")
		return tokenResponse{}, badRequest(errInvalidGrant, "the authorization code was used already; the tokens it gave are revoked. Start the authorization again")
	}
	if c.ClientID != clientID {
		return tokenResponse{}, badRequest(errInvalidGrant, "the authorization code was issued to another client")
	}
	if form.Get("redirect_uri") != c.RedirectURI {
		return tokenResponse{}, badRequest(errInvalidGrant, "redirect_uri must be the one the authorization request named")
	}
	verifier := form.Get("code_verifier")
	if verifier == "" {
		return tokenResponse{}, badRequest(errInvalidRequest, "code_verifier is missing (PKCE is required)")
	}
	if !validVerifier(verifier) || !verifierMatches(verifier, c.Challenge) {
		return tokenResponse{}, badRequest(errInvalidGrant, "code_verifier does not match the code_challenge of the authorization request")
	}
	if res := form.Get("resource"); res != "" && strings.TrimRight(res, "/") != c.Resource {
		return tokenResponse{}, badRequest(errInvalidTarget, "resource must be the one the authorization request named")
	}
	if _, err := s.cfg.Accounts.ActivePerson(ctx, c.Handle); err != nil {
		if errors.Is(err, auth.ErrBadCredential) {
			return tokenResponse{}, badRequest(errInvalidGrant, "the person who approved can no longer act (disabled)")
		}
		return tokenResponse{}, s.serverError("reading the approving person", err)
	}
	access, refresh, tokens, expires := s.newTokens(c.GrantID, now)
	r := board.OAuthRedemption{CodeHash: hash, Tokens: tokens, Now: now, Grant: board.OAuthGrant{ID: c.GrantID, ClientID: c.ClientID,
		ClientName: c.ClientName, Handle: c.Handle, Agent: c.Agent, Resource: c.Resource, Scope: c.Scope, CreatedAt: now, ExpiresAt: expires}}
	if !isDocumentID(clientID) {
		r.KeepClient = clientID
	}
	switch err := s.cfg.Store.RedeemOAuthCode(ctx, r); {
	case errors.Is(err, board.ErrUsed):
		// Another exchange of the same code won meanwhile: a reuse.
		s.revokeFamily(ctx, c.GrantID, "its authorization code was used twice at once")
		return tokenResponse{}, badRequest(errInvalidGrant, "the authorization code was used already; the tokens it gave are revoked. Start the authorization again")
	case errors.Is(err, board.ErrNotFound):
		return tokenResponse{}, newError(http.StatusUnauthorized, errInvalidClient, "this client_id is not registered here (or no longer); register again")
	case err != nil:
		return tokenResponse{}, s.serverError("redeeming an authorization code", err)
	}
	s.log.Info("oauth: grant made", "grant_id", c.GrantID, "client_id", clientID, "person", c.Handle, "agent", c.Agent)
	return s.response(access, refresh, c.Scope), nil
}

// refresh rotates a refresh token: the presented one is used up, and a
// second use of it revokes the grant (someone else may hold it).
func (s *Server) refresh(ctx context.Context, form url.Values, clientID string) (tokenResponse, *oauthError) {
	if e := s.knownClient(ctx, clientID); e != nil {
		return tokenResponse{}, e
	}
	token := form.Get("refresh_token")
	if token == "" {
		return tokenResponse{}, badRequest(errInvalidRequest, "refresh_token is missing")
	}
	gone := badRequest(errInvalidGrant, "the refresh token is unknown, expired or revoked; authorize again")
	grantID, ok := parseToken(refreshPrefix, token)
	if !ok {
		return tokenResponse{}, gone
	}
	hash := auth.HashSecret(token)
	t, g, err := s.cfg.Store.GetOAuthToken(ctx, grantID, hash)
	if errors.Is(err, board.ErrNotFound) {
		return tokenResponse{}, gone
	}
	if err != nil {
		return tokenResponse{}, s.serverError("reading a refresh token", err)
	}
	now := s.now()
	if t.Kind != board.OAuthRefresh || g.ClientID != clientID {
		return tokenResponse{}, gone
	}
	if g.RevokedAt != nil {
		return tokenResponse{}, gone
	}
	if t.UsedAt != nil {
		s.revokeFamily(ctx, g.ID, "a refresh token was used twice")
		return tokenResponse{}, badRequest(errInvalidGrant, "the refresh token was used already, so the connection is revoked (someone else may hold it); authorize again")
	}
	if !now.Before(t.ExpiresAt) {
		return tokenResponse{}, gone
	}
	if res := form.Get("resource"); res != "" && strings.TrimRight(res, "/") != g.Resource {
		return tokenResponse{}, badRequest(errInvalidTarget, "resource must be the one the connection was approved for")
	}
	if _, err := s.cfg.Accounts.ActivePerson(ctx, g.Handle); err != nil {
		if errors.Is(err, auth.ErrBadCredential) {
			return tokenResponse{}, badRequest(errInvalidGrant, "the person who approved can no longer act (disabled)")
		}
		return tokenResponse{}, s.serverError("reading the approving person", err)
	}
	access, refresh, tokens, expires := s.newTokens(g.ID, now)
	err = s.cfg.Store.RotateOAuthRefresh(ctx, board.OAuthRotation{GrantID: g.ID, UsedHash: hash, Next: tokens, GrantExpiresAt: expires, Now: now})
	if errors.Is(err, board.ErrUsed) {
		// Used meanwhile (another refresh won) or revoked meanwhile.
		s.revokeFamily(ctx, g.ID, "a refresh token was used twice at once")
		return tokenResponse{}, badRequest(errInvalidGrant, "the refresh token was used already, so the connection is revoked (someone else may hold it); authorize again")
	}
	if err != nil {
		return tokenResponse{}, s.serverError("rotating a refresh token", err)
	}
	return s.response(access, refresh, g.Scope), nil
}
