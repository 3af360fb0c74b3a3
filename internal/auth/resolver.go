package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Mode is LEDGER_AUTH: how callers are identified.
type Mode string

const (
	// ModeLoopback: no credentials. The web board acts as LocalPerson, MCP
	// as the configured agent (LEDGER_AUTHOR). Only for a server on a
	// loopback address; the default of `make run`.
	ModeLoopback Mode = "loopback"
	// ModeRequired: every request but sign-in, invitations, static assets
	// and /healthz carries a credential. The only mode on Lambda.
	ModeRequired Mode = "required"
)

// ParseMode reads LEDGER_AUTH ("" is loopback).
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", ModeLoopback:
		return ModeLoopback, nil
	case ModeRequired:
		return ModeRequired, nil
	}
	return "", fmt.Errorf("LEDGER_AUTH=%q must be loopback or required", s)
}

// LocalPerson is the web board's caller in loopback mode: the one local
// person, an admin.
var LocalPerson = board.Principal{Author: "human:local", Role: board.RoleAdmin}

// SessionCookie names the session cookie. The __Host- prefix makes the
// browser refuse it unless it is Secure, for this host only and for every
// path, so no subdomain or plain-HTTP page can set or shadow it.
const SessionCookie = "__Host-session"

// PlainSessionCookie names the session cookie of a server people reach
// over plain HTTP off loopback (allowed on purpose, on a trusted network):
// browsers keep neither Secure nor __Host- cookies from such a page, so
// this one is not Secure; it is still host-only (no Domain) and HttpOnly.
const PlainSessionCookie = "ledger-session"

// A BearerVerifier recognises one kind of bearer token (API tokens, OAuth
// access tokens). ok is false when the token is not of its kind, so the
// next verifier is asked; a token of its kind that is unknown, revoked or
// expired is ok with an error.
type BearerVerifier func(ctx context.Context, token string) (p board.Principal, ok bool, err error)

// Errors of Resolve: both mean 401.
var (
	ErrNoCredential  = errors.New("no credential")
	ErrBadCredential = errors.New("the credential is unknown, expired or revoked")
)

// Surface is what a request is for: it decides which credentials count.
type Surface int

const (
	// SurfaceWeb: the board's pages and forms, signed in by session cookie.
	SurfaceWeb Surface = iota
	// SurfaceAPI: MCP (and REST), with a bearer token, or the session
	// cookie of a signed-in person (SameSite=Lax keeps it off cross-site
	// POSTs, and /mcp refuses foreign origins).
	SurfaceAPI
)

// ResolverConfig configures a Resolver.
type ResolverConfig struct {
	Mode     Mode
	Accounts *Accounts
	// LocalAgent is the API caller in loopback mode (LEDGER_AUTHOR).
	LocalAgent board.Principal
	// ResourceMetadata, if set, is the URL of the protected resource
	// metadata (RFC 9728) of what a request asks for; a 401's challenge
	// names it (resource_metadata), so an OAuth client can discover how to
	// get a token.
	ResourceMetadata func(req *http.Request) string
	// PlainHTTPCookie: sessions travel in PlainSessionCookie, without
	// Secure, because the public URL is plain HTTP off loopback.
	PlainHTTPCookie bool
}

// Resolver is the one place a request's credential becomes a principal,
// for every surface. Verifiers for further credentials are added with
// AddBearer before serving.
type Resolver struct {
	cfg     ResolverConfig
	bearers []BearerVerifier
}

// NewResolver returns a resolver with no bearer verifiers.
func NewResolver(cfg ResolverConfig) *Resolver {
	if cfg.Mode == "" {
		cfg.Mode = ModeLoopback
	}
	return &Resolver{cfg: cfg}
}

// Mode is the resolver's mode.
func (r *Resolver) Mode() Mode { return r.cfg.Mode }

// SessionCookieName is the cookie sessions travel in: SessionCookie, or
// PlainSessionCookie on a plain-HTTP public URL.
func (r *Resolver) SessionCookieName() string {
	if r.cfg.PlainHTTPCookie {
		return PlainSessionCookie
	}
	return SessionCookie
}

// SecureCookies says whether the session cookie is marked Secure: always,
// except on a plain-HTTP public URL off loopback, where a browser would
// drop it.
func (r *Resolver) SecureCookies() bool { return !r.cfg.PlainHTTPCookie }

// AddBearer adds a kind of bearer token. Not safe during serving.
func (r *Resolver) AddBearer(v BearerVerifier) { r.bearers = append(r.bearers, v) }

// Resolve returns who is calling: in loopback mode the local principal of
// the surface; otherwise the principal of the request's credential, or
// ErrNoCredential / ErrBadCredential. Source is left to the caller.
//
// A bearer token on an API surface is honoured in both modes: in loopback
// mode a script or agent that sends one acts as its token's principal (a
// person, or an agent for them) instead of the local agent.
func (r *Resolver) Resolve(req *http.Request, surface Surface) (board.Principal, error) {
	ctx := req.Context()
	if surface == SurfaceAPI {
		if token, ok := bearerToken(req); ok {
			return r.resolveBearer(context.WithValue(ctx, requestKey{}, req), token)
		}
	}
	if r.cfg.Mode == ModeLoopback {
		if surface == SurfaceWeb {
			return LocalPerson, nil
		}
		return r.cfg.LocalAgent, nil
	}
	c, err := req.Cookie(r.SessionCookieName())
	if err != nil || c.Value == "" {
		return board.Principal{}, ErrNoCredential
	}
	return r.resolveSession(ctx, c.Value)
}

func (r *Resolver) resolveSession(ctx context.Context, secret string) (board.Principal, error) {
	p, err := r.cfg.Accounts.sessionPerson(ctx, secret)
	if errors.Is(err, errNoSession) {
		return board.Principal{}, ErrBadCredential
	}
	if err != nil {
		return board.Principal{}, err
	}
	pr := p.Principal("")
	pr.Credential = board.Credential{Kind: board.CredentialSession, Handle: p.Handle}
	return pr, nil
}

func (r *Resolver) resolveBearer(ctx context.Context, token string) (board.Principal, error) {
	for _, v := range r.bearers {
		p, ok, err := v(ctx, token)
		if !ok {
			continue
		}
		// ErrBadCredential (a 401), or a failure to check (a 503): a store
		// that did not answer says nothing about the token.
		return p, err
	}
	return board.Principal{}, ErrBadCredential
}

type requestKey struct{}

// RequestFrom is the request whose bearer token a BearerVerifier is
// checking, or nil: a verifier that binds tokens to a resource (OAuth's
// audience) needs to know what the request is for.
func RequestFrom(ctx context.Context) *http.Request {
	req, _ := ctx.Value(requestKey{}).(*http.Request)
	return req
}

// bearerToken reads "Authorization: Bearer <token>".
func bearerToken(req *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(req.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// Unauthorized reports whether err means 401 (no or a bad credential)
// rather than a failure to check it.
func Unauthorized(err error) bool {
	return errors.Is(err, ErrNoCredential) || errors.Is(err, ErrBadCredential)
}

// RequireAPI serves next as the resolved API caller (board.WithPrincipal,
// with source), or answers 401 with a Bearer challenge through deny, which
// writes the surface's own error body. In loopback mode every request is
// the local agent.
func (r *Resolver) RequireAPI(source board.Source, deny func(w http.ResponseWriter, status int, msg string), next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		p, err := r.Resolve(req, SurfaceAPI)
		switch {
		case Unauthorized(err):
			w.Header().Set("WWW-Authenticate", r.challenge(req, err))
			msg := "this server needs a credential: connect with OAuth (the resource_metadata of WWW-Authenticate says where) or send Authorization: Bearer <API token>"
			if errors.Is(err, ErrBadCredential) {
				msg = "the credential was not accepted (unknown, expired or revoked); get a new one"
			}
			deny(w, http.StatusUnauthorized, msg)
			return
		case err != nil:
			deny(w, http.StatusServiceUnavailable, "the credential could not be checked right now; retry")
			return
		}
		p.Source = source
		next.ServeHTTP(w, req.WithContext(board.WithPrincipal(req.Context(), p)))
	})
}

// challenge is the WWW-Authenticate value of a 401 (RFC 6750): the
// protected resource metadata of what was asked for (RFC 9728), so an
// OAuth client finds the authorization server; a bad credential adds
// error="invalid_token". No scope: this server has none.
func (r *Resolver) challenge(req *http.Request, err error) string {
	c := `Bearer realm="ticket-ledger"`
	if r.cfg.ResourceMetadata != nil {
		if u := r.cfg.ResourceMetadata(req); u != "" {
			c += `, resource_metadata="` + u + `"`
		}
	}
	if errors.Is(err, ErrBadCredential) {
		c += `, error="invalid_token", error_description="the token is unknown, expired or revoked"`
	}
	return c
}
