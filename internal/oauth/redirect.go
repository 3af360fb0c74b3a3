package oauth

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Redirect URIs (docs/oauth.md): https anywhere (claude.ai:
// https://claude.ai/api/mcp/auth_callback), or http on a loopback host for
// a client on the person's own machine (Claude Code:
// http://localhost:<port>/callback). No fragment, no user information. A
// loopback redirect matches a registered one on any port (RFC 8252 §7.3:
// a native app listens on whatever port is free); everything else matches
// exactly, character for character.

const (
	maxRedirectURIs   = 10
	maxRedirectURILen = 2000
)

// checkRedirectURI says what is wrong with a redirect URI a client
// registers, or nil.
func checkRedirectURI(raw string) error {
	if raw == "" {
		return fmt.Errorf("a redirect URI is empty")
	}
	if len(raw) > maxRedirectURILen {
		return fmt.Errorf("a redirect URI is longer than %d characters", maxRedirectURILen)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return fmt.Errorf("redirect URI %q is not an absolute URL", clip(raw))
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return fmt.Errorf("redirect URI %q has a fragment, which OAuth does not allow", clip(raw))
	}
	if u.User != nil {
		return fmt.Errorf("redirect URI %q carries user information", clip(raw))
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if loopbackHost(u.Hostname()) {
			return nil
		}
		return fmt.Errorf("redirect URI %q is plain http on a host that is not loopback; use https, or http://localhost or http://127.0.0.1 for an app on the person's machine", clip(raw))
	}
	return fmt.Errorf("redirect URI %q must be https (or http on localhost, 127.0.0.1 or [::1])", clip(raw))
}

func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// redirectMatches says whether the redirect URI of a request is one of the
// client's: exactly, or for a loopback http URI, on any port.
func redirectMatches(registered []string, given string) bool {
	g, err := url.Parse(given)
	if err != nil {
		return false
	}
	for _, r := range registered {
		if r == given {
			return true
		}
		u, err := url.Parse(r)
		if err != nil || u.Scheme != "http" || g.Scheme != "http" || !loopbackHost(u.Hostname()) {
			continue
		}
		if strings.EqualFold(u.Hostname(), g.Hostname()) && u.EscapedPath() == g.EscapedPath() && u.RawQuery == g.RawQuery &&
			g.User == nil && g.Fragment == "" {
			return true
		}
	}
	return false
}

// withParams returns the redirect URI with params added to its query
// (keeping what the client put there).
func withParams(redirectURI string, params url.Values) string {
	u, err := url.Parse(redirectURI)
	if err != nil {
		return redirectURI
	}
	q := u.Query()
	for k, vs := range params {
		for _, v := range vs {
			if v != "" {
				q.Add(k, v)
			}
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// clip shortens what an error quotes.
func clip(s string) string {
	if len(s) <= 100 {
		return s
	}
	return s[:100] + "…"
}
