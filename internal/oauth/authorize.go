package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The authorization endpoint's rules. The page is the web board's: it
// parses the request (ParseAuthorization), shows it to the signed-in
// person, and ends it with Approve or Deny, which return where to send the
// browser: back to the client with a code (or an error), state and iss.

// Authorization is a checked authorization request.
type Authorization struct {
	Client      board.OAuthClient
	RedirectURI string
	State       string
	Challenge   string // PKCE S256 code_challenge
	Resource    string // the audience its tokens will have
	Scope       string
	// Params are the request's own parameters, for the approval form to
	// send back unchanged (they are checked again then).
	Params url.Values
}

// Verified says whether the client's identity was checked: its client_id is
// an https URL whose document was fetched from there. A registered client
// named itself.
func (a *Authorization) Verified() bool { return a.Client.Kind == board.OAuthClientMetadataDocument }

// ClientHost is the host of a verified client's client_id ("" otherwise):
// what the draft asks the approval page to show.
func (a *Authorization) ClientHost() string {
	if !a.Verified() {
		return ""
	}
	u, _ := url.Parse(a.Client.ID)
	return u.Host
}

// RedirectOrigin is where the browser goes back to: the redirect URI's
// scheme and host, shown to the person and allowed as a form target.
//
// It is built from the parsed and checked scheme, host and port, never from
// the raw string, since it goes into a Content-Security-Policy header; ""
// when they do not check out (the page then allows only its own origin).
func (a *Authorization) RedirectOrigin() string {
	u, err := url.Parse(a.RedirectURI)
	if err != nil {
		return ""
	}
	o, ok := originOf(u)
	if !ok {
		return ""
	}
	return o
}

// LoopbackRedirect says whether the browser goes back to a program on the
// person's machine (http on a loopback host). A metadata document proves
// who publishes an app's details, not that the program listening on
// localhost is that app: the approval page warns as for an unverified one.
func (a *Authorization) LoopbackRedirect() bool {
	u, err := url.Parse(a.RedirectURI)
	return err == nil && u.Scheme == "http" && loopbackHost(u.Hostname())
}

// RequestError is an authorization request that cannot go back to the
// client (its client_id or redirect_uri is missing or wrong): the page
// shows it to the person instead (RFC 6749 §4.1.2.1).
type RequestError struct{ Message string }

// Error is the message the page shows the person.
func (e *RequestError) Error() string { return e.Message }

// RedirectError is an authorization request refused back to the client:
// Location is its redirect URI with error, error_description, state and iss.
type RedirectError struct {
	Location    string
	Code        string
	Description string
}

// Error is the OAuth error code and its description, as the redirect
// carries them.
func (e *RedirectError) Error() string { return e.Code + ": " + e.Description }

const (
	maxStateLen = 2000
	maxScopeLen = 1000
)

// ParseAuthorization checks an authorization request (the query of GET
// /oauth/authorize, or the approval form that carries it back). Errors:
// *RequestError, *RedirectError, or a failure to read the store.
func (s *Server) ParseAuthorization(ctx context.Context, q url.Values) (*Authorization, error) {
	for _, k := range []string{"client_id", "redirect_uri"} {
		if len(q[k]) > 1 {
			return nil, &RequestError{fmt.Sprintf("this sign-in link is broken: it names %s more than once. Start again from the app.", k)}
		}
	}
	c, err := s.client(ctx, q.Get("client_id"))
	var unknown *errUnknownClient
	if errors.As(err, &unknown) {
		return nil, &RequestError{"This app cannot connect: " + unknown.reason + "."}
	}
	if err != nil {
		return nil, s.failure("reading a client", err)
	}
	redirect := q.Get("redirect_uri")
	if redirect == "" {
		return nil, &RequestError{fmt.Sprintf("This app (%s) cannot connect: its request names no redirect_uri.", c.Name)}
	}
	if !redirectMatches(c.RedirectURIs, redirect) {
		return nil, &RequestError{fmt.Sprintf("This app (%s) cannot connect: it asks to send you back to %s, which is not one of its registered redirect URIs. "+
			"Nothing was shared.", c.Name, clip(redirect))}
	}
	a := &Authorization{Client: c, RedirectURI: redirect, State: q.Get("state"), Params: url.Values{}}
	for k, vs := range q {
		a.Params[k] = vs
	}
	refuse := func(code, description string) (*Authorization, error) {
		return nil, &RedirectError{Location: s.errorRedirect(redirect, a.State, code, description), Code: code, Description: description}
	}
	for _, k := range []string{"response_type", "state", "code_challenge", "code_challenge_method", "resource", "scope"} {
		if len(q[k]) > 1 {
			return refuse(errInvalidRequest, k+" appears more than once")
		}
	}
	if len(a.State) > maxStateLen {
		a.State = ""
		return refuse(errInvalidRequest, fmt.Sprintf("state is longer than %d characters", maxStateLen))
	}
	if rt := q.Get("response_type"); rt != "code" {
		return refuse(errUnsupportedResponseType, fmt.Sprintf("response_type must be code (got %q)", clip(rt)))
	}
	a.Challenge = q.Get("code_challenge")
	method := q.Get("code_challenge_method")
	switch {
	case a.Challenge == "":
		return refuse(errInvalidRequest, "PKCE is required: send code_challenge with code_challenge_method=S256")
	case method != "S256":
		return refuse(errInvalidRequest, fmt.Sprintf("code_challenge_method must be S256 (got %q); plain is not accepted", clip(method)))
	case len(a.Challenge) != 43 || !isBase64URL(a.Challenge):
		return refuse(errInvalidRequest, "code_challenge must be the base64url SHA-256 of the code_verifier (43 characters)")
	}
	resource, ok := s.resource(q.Get("resource"))
	if !ok {
		return refuse(errInvalidTarget, fmt.Sprintf("resource %q is not served here; use %s%s", clip(q.Get("resource")), s.issuer, mcpPath))
	}
	a.Resource = resource
	a.Scope = strings.TrimSpace(q.Get("scope"))
	if len(a.Scope) > maxScopeLen {
		return refuse(errInvalidRequest, fmt.Sprintf("scope is longer than %d characters", maxScopeLen))
	}
	return a, nil
}

// resource checks a requested resource (RFC 8707) and returns the
// audience its tokens get: one of this server's resources, without a
// trailing slash; none asked is the whole server.
func (s *Server) resource(r string) (string, bool) {
	if r == "" {
		return s.issuer, true
	}
	r = strings.TrimRight(r, "/")
	for _, ok := range []string{s.issuer, s.issuer + mcpPath, s.issuer + restPath} {
		if r == ok {
			return r, true
		}
	}
	return "", false
}

// audienceAllows says whether a token bound to resource may be used on
// path: the resource is the request's URL or a prefix of it at a path
// boundary (the whole server covers /mcp and /api/v1; /mcp only itself).
func (s *Server) audienceAllows(resource, path string) bool {
	target := s.issuer + path
	return target == resource || strings.HasPrefix(target, resource+"/")
}

func (s *Server) errorRedirect(redirect, state, code, description string) string {
	return withParams(redirect, url.Values{"error": {code}, "error_description": {description}, "state": {state}, "iss": {s.issuer}})
}

// Approve records the signed-in person's approval, with the agent's name,
// and returns where to send the browser: the redirect URI with the code,
// state and iss. The code works once, within a few minutes.
func (s *Server) Approve(ctx context.Context, a *Authorization, agentName string) (string, error) {
	handle, err := person(ctx)
	if err != nil {
		return "", err
	}
	agent, err := board.ValidateAgentName(strings.TrimSpace(agentName))
	if err != nil {
		return "", err
	}
	if _, err := s.cfg.Accounts.ActivePerson(ctx, handle); err != nil {
		if errors.Is(err, auth.ErrBadCredential) {
			return "", board.Errorf(board.CodeForbidden, "human:%s cannot approve connections now (disabled); ask an admin", handle)
		}
		return "", s.failure("reading the approving person", err)
	}
	now := s.now()
	for attempt := 0; ; attempt++ {
		code := auth.NewSecret()
		err := s.cfg.Store.CreateOAuthCode(ctx, board.OAuthCode{Hash: auth.HashSecret(code), ClientID: a.Client.ID,
			ClientName: a.Client.Name, RedirectURI: a.RedirectURI, Challenge: a.Challenge, Resource: a.Resource, Scope: a.Scope,
			Handle: handle, Agent: agent, GrantID: newGrantID(), CreatedAt: now, ExpiresAt: now.Add(s.cfg.CodeTTL)})
		if err == nil {
			s.log.Info("oauth: connection approved", "client_id", a.Client.ID, "person", handle, "agent", agent)
			return withParams(a.RedirectURI, url.Values{"code": {code}, "state": {a.State}, "iss": {s.issuer}}), nil
		}
		if !errors.Is(err, board.ErrExists) || attempt == 2 {
			return "", s.failure("storing an authorization code", err)
		}
	}
}

// Deny returns where to send the browser when the person refuses: the
// redirect URI with error=access_denied, state and iss.
func (s *Server) Deny(a *Authorization) string {
	return s.errorRedirect(a.RedirectURI, a.State, errAccessDenied, "the person did not allow the connection")
}

// DefaultAgentName is the agent name the approval page suggests for a
// client: its name in lower case, other characters as '-' ("Claude" →
// claude, "Claude Code" → claude-code), or "agent".
func DefaultAgentName(clientName string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(clientName) {
		// '-' is the separator written below, never copied.
		if r < 0x80 && r != '-' && board.IsAgentNameByte(byte(r)) {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	name := strings.Trim(b.String(), "-._")
	if len(name) > board.MaxAgentName {
		name = strings.TrimRight(name[:board.MaxAgentName], "-._")
	}
	if name == "" || strings.HasPrefix(name, "an-unnamed-app") {
		return "agent"
	}
	return name
}
