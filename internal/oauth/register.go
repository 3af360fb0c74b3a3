package oauth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/edge"
)

// Dynamic client registration (RFC 7591), open to anyone, for public
// clients (docs/oauth.md). Every client is registered as public
// (token_endpoint_auth_method none) whatever it asks: RFC 7591 §3.2.1 lets
// the server replace a requested method, and claude.ai asks for
// client_secret_post yet reads the method from the answer. Nobody vouches
// for a registered client's name: the approval page says so and shows where
// the person will be sent back to. A registration that never leads to a
// grant lapses after an hour. Registrations are bounded in size and rate
// (registerlimit.go).

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST, OPTIONS")
		writeError(w, newError(http.StatusMethodNotAllowed, errInvalidRequest, "register with POST and a JSON body"))
		return
	}
	if ok, wait := s.regs.allow(edge.ClientAddr(r), s.now()); !ok {
		tooManyRegistrations(w, wait)
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		writeError(w, badRequest(errInvalidClientMetadata, "send the client metadata as application/json"))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRegistrationBodyBytes))
	if err != nil {
		writeError(w, badRequest(errInvalidClientMetadata, fmt.Sprintf("the registration is larger than %d bytes", maxRegistrationBodyBytes)))
		return
	}
	var meta oauthex.ClientRegistrationMetadata
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&meta); err != nil {
		writeError(w, badRequest(errInvalidClientMetadata, "the registration is not a JSON object of client metadata: "+err.Error()))
		return
	}
	c, oerr := s.checkRegistration(meta)
	if oerr != nil {
		writeError(w, oerr)
		return
	}
	// Only registrations that would be stored count against the store-wide
	// cap: a refused one costs the store nothing.
	ok, wait, err := s.countInStore(r.Context())
	if err != nil {
		e := s.failure("counting a client registration", err)
		writeError(w, newError(http.StatusInternalServerError, errServerError, e.Error()))
		return
	}
	if !ok {
		s.log.Warn("oauth: the store-wide registration cap is reached; refusing registrations until the window turns over",
			"per_window", s.cfg.RegistrationsPerWindow, "retry_after", wait)
		tooManyRegistrations(w, wait)
		return
	}
	if err := s.cfg.Store.PutOAuthClient(r.Context(), c); err != nil {
		e := s.failure("registering a client", err)
		writeError(w, newError(http.StatusInternalServerError, errServerError, e.Error()))
		return
	}
	s.log.Info("oauth: client registered", "client_id", c.ID, "client_name", c.Name)
	resp := &oauthex.ClientRegistrationResponse{
		ClientRegistrationMetadata: oauthex.ClientRegistrationMetadata{
			RedirectURIs:            c.RedirectURIs,
			TokenEndpointAuthMethod: "none",
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			ResponseTypes:           []string{"code"},
			ClientName:              c.Name,
			ClientURI:               c.URI,
			Scope:                   meta.Scope,
			SoftwareID:              meta.SoftwareID,
			SoftwareVersion:         meta.SoftwareVersion,
			ApplicationType:         meta.ApplicationType,
		},
		ClientID:         c.ID,
		ClientIDIssuedAt: c.CreatedAt,
	}
	writeJSON(w, http.StatusCreated, resp)
}

// checkRegistration turns requested metadata into a client, or says what
// is wrong with it.
func (s *Server) checkRegistration(meta oauthex.ClientRegistrationMetadata) (board.OAuthClient, *oauthError) {
	if len(meta.RedirectURIs) == 0 {
		return board.OAuthClient{}, badRequest(errInvalidRedirectURI, "redirect_uris is required: list where the person is sent back after approving")
	}
	if len(meta.RedirectURIs) > maxRedirectURIs {
		return board.OAuthClient{}, badRequest(errInvalidRedirectURI, fmt.Sprintf("at most %d redirect_uris", maxRedirectURIs))
	}
	for _, r := range meta.RedirectURIs {
		if err := checkRedirectURI(r); err != nil {
			return board.OAuthClient{}, badRequest(errInvalidRedirectURI, err.Error())
		}
	}
	for _, g := range meta.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return board.OAuthClient{}, badRequest(errInvalidClientMetadata, fmt.Sprintf("grant type %q is not offered; this server offers authorization_code and refresh_token", clip(g)))
		}
	}
	for _, rt := range meta.ResponseTypes {
		if rt != "code" {
			return board.OAuthClient{}, badRequest(errInvalidClientMetadata, fmt.Sprintf("response type %q is not offered; use code", clip(rt)))
		}
	}
	if err := board.ValidateClientName(meta.ClientName); err != nil {
		return board.OAuthClient{}, badRequest(errInvalidClientMetadata, err.Error())
	}
	name := meta.ClientName
	if name == "" {
		name = "an unnamed app"
	}
	uri := ""
	if u, err := url.Parse(meta.ClientURI); meta.ClientURI != "" && err == nil && (u.Scheme == "https" || u.Scheme == "http") && len(meta.ClientURI) <= maxRedirectURILen {
		uri = meta.ClientURI
	}
	now := s.now()
	return board.OAuthClient{ID: newClientID(), Kind: board.OAuthClientRegistered, Name: name, URI: uri,
		RedirectURIs: meta.RedirectURIs, CreatedAt: now, ExpiresAt: now.Add(unusedClientTTL)}, nil
}

// tooManyRegistrations refuses a registration for now, whichever bound it
// hit: the caller learns when to try again, not which bound it was.
func tooManyRegistrations(w http.ResponseWriter, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
	writeError(w, newError(http.StatusTooManyRequests, errInvalidRequest, "too many client registrations; try again later"))
}
