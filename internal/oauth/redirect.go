package oauth

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
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
	// The origin goes into the approval page's Content-Security-Policy
	// (form-action): a host that is not a plain DNS name or address (a
	// zone id, ';', spaces, quotes) could add directives of its own.
	if _, ok := originOf(u); !ok {
		return fmt.Errorf("redirect URI %q has a host that is not a DNS name, an IPv4 address or an IPv6 address (no zone ids), or a bad port", clip(raw))
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

// originOf builds the origin scheme://host[:port] of u from its parsed
// parts, each checked: the scheme http or https, the host a DNS name, an
// IPv4 address or a bracketed IPv6 address without a zone, the port
// digits. ok is false for anything else, so nothing unchecked reaches a
// header.
func originOf(u *url.URL) (string, bool) {
	if u.Scheme != "https" && u.Scheme != "http" {
		return "", false
	}
	host, port := u.Hostname(), u.Port()
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
			return "", false
		}
	}
	// url.Parse keeps a colon with an empty port in Host; refuse it.
	if strings.HasSuffix(u.Host, ":") {
		return "", false
	}
	var h string
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return "", false
		}
		h = a.String()
		if a.Is6() && !a.Is4In6() || strings.Contains(host, ":") {
			h = "[" + h + "]"
		}
	} else if dnsName(host) {
		h = strings.ToLower(host)
	} else {
		return "", false
	}
	if port != "" {
		h += ":" + port
	}
	return u.Scheme + "://" + h, true
}

// dnsName: labels of letters, digits and hyphens (not at either end), 1 to
// 63 characters each, 253 in all; a single trailing dot allowed.
func dnsName(host string) bool {
	host = strings.TrimSuffix(host, ".")
	if host == "" || len(host) > 253 {
		return false
	}
	for _, label := range strings.Split(host, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
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
