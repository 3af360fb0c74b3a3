package main

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/edge"
)

// The settings of a server reached through a reverse proxy (docs/team.md).
const (
	// envTrustedProxies lists the proxies (CIDRs or addresses, comma
	// separated) whose forwarded headers are believed; default none.
	envTrustedProxies = "LEDGER_TRUSTED_PROXIES"
	// envAllowPlainHTTP=1 lets required mode listen off loopback without
	// an https public URL, on a network the operator trusts.
	envAllowPlainHTTP = "LEDGER_ALLOW_PLAIN_HTTP"
)

// checkBaseURL holds LEDGER_BASE_URL to what it is used as: the OAuth
// issuer, the origin the Host and Origin checks compare with, and the start
// of every link. An origin, so no path (the well-known documents are at the
// host's root), no query, no credentials. It returns the URL without a
// trailing slash.
func checkBaseURL(raw string) (string, error) {
	bad := func(why string) error {
		return fmt.Errorf("LEDGER_BASE_URL=%q %s; give the public origin people and agents use, e.g. https://board.example.com", raw, why)
	}
	u, err := url.Parse(strings.TrimRight(raw, "/"))
	switch {
	case err != nil:
		return "", bad("is not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return "", bad("is not an http or https URL")
	case u.Host == "" || u.Hostname() == "":
		return "", bad("has no host")
	case u.User != nil:
		return "", bad("carries a user name")
	case u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return "", bad("has a path, query or fragment (the OAuth documents are at the host's root)")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", bad("has a bad port")
		}
	}
	return u.Scheme + "://" + strings.ToLower(u.Host), nil
}

// parseTrustedProxies reads LEDGER_TRUSTED_PROXIES: CIDRs, or single
// addresses taken as one-address prefixes.
func parseTrustedProxies(raw string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range strings.Split(raw, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if a, err := netip.ParseAddr(item); err == nil && a.Zone() == "" {
			a = a.Unmap()
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(item)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not a CIDR such as 127.0.0.1/32, 10.0.0.0/8 or ::1/128", envTrustedProxies, item)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// checkListen decides whether the server may start on addr with its
// public URL. Loopback mode has no sign-in, so it stays on loopback
// addresses. Required mode may listen anywhere, but its public URL must be
// https (checkPublicURL), and off loopback it needs that https URL unless
// plain HTTP was allowed on purpose: otherwise passwords, session cookies
// and tokens cross the network in clear.
func checkListen(cfg config) error {
	host, _, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return fmt.Errorf("LEDGER_ADDR=%q is not host:port: %w", cfg.Addr, err)
	}
	ip := net.ParseIP(host)
	onLoopback := host == "localhost" || (ip != nil && ip.IsLoopback())
	if cfg.Auth != auth.ModeRequired {
		if onLoopback {
			return nil
		}
		return fmt.Errorf("LEDGER_ADDR=%q is not a loopback address; in LEDGER_AUTH=loopback mode nobody signs in, so the server only listens on 127.0.0.1, ::1 or localhost "+
			"(to serve a team, use LEDGER_AUTH=required behind an https proxy: docs/team.md)", cfg.Addr)
	}
	if err := checkPublicURL(cfg); err != nil {
		return err
	}
	if onLoopback || cfg.AllowPlainHTTP || (cfg.BaseURLSet && strings.HasPrefix(cfg.BaseURL, "https://")) {
		return nil
	}
	why := "LEDGER_BASE_URL is not set"
	if cfg.BaseURLSet {
		why = fmt.Sprintf("LEDGER_BASE_URL=%q is not https", cfg.BaseURL)
	}
	return errors.New("LEDGER_ADDR=" + strconv.Quote(cfg.Addr) + " is not a loopback address and " + why +
		": people's passwords, session cookies and tokens would cross the network in clear. " +
		"Put a TLS-terminating proxy in front and set LEDGER_BASE_URL=https://<its name>, " +
		"or set " + envAllowPlainHTTP + "=1 if the network itself is trusted")
}

// checkPublicURL refuses, in required mode, a LEDGER_BASE_URL that is
// plain http and names another machine, unless plain HTTP was allowed on
// purpose. The listen address does not matter: a proxy on the same machine
// forwards to a loopback listener, and the people who sign in still reach
// that public URL over the network, where the password and the session
// cookie (not Secure over http) would cross in clear. A loopback URL is
// kept: nothing leaves the machine, and browsers count loopback as secure.
func checkPublicURL(cfg config) error {
	if cfg.Auth != auth.ModeRequired || !cfg.BaseURLSet || cfg.AllowPlainHTTP {
		return nil
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil {
		return fmt.Errorf("LEDGER_BASE_URL=%q is not a URL: %w", cfg.BaseURL, err)
	}
	if u.Scheme == "https" || edge.IsLoopbackHost(u.Host) {
		return nil
	}
	return fmt.Errorf("LEDGER_BASE_URL=%q is not https: people's passwords, session cookies and tokens would cross the network in clear "+
		"on their way to it, whatever address the server listens on. Put a TLS-terminating proxy in front and set LEDGER_BASE_URL=https://<its name>, "+
		"or set %s=1 if the network itself is trusted", cfg.BaseURL, envAllowPlainHTTP)
}

// publicHostChecked says whether the server answers only to the host of
// LEDGER_BASE_URL: a team server in required mode that was told its public
// URL. Not on Lambda, where the API's own name and a custom domain both
// reach the function; not in loopback mode, which has its own check.
func (c config) publicHostChecked() bool {
	return c.Auth == auth.ModeRequired && c.BaseURLSet && !c.lambda
}

// loopbackHostChecked says whether the server answers only to loopback
// names: required mode listening on loopback without LEDGER_BASE_URL (make
// run with LEDGER_AUTH=required), where no public name is known. Not on
// Lambda.
func (c config) loopbackHostChecked() bool {
	if c.Auth != auth.ModeRequired || c.BaseURLSet || c.lambda {
		return false
	}
	host, _, err := net.SplitHostPort(c.Addr)
	return err == nil && edge.IsLoopbackHost(host)
}

// plainHTTPCookie says whether people reach the board over plain HTTP off
// loopback (LEDGER_ALLOW_PLAIN_HTTP), where browsers drop Secure cookies:
// loopback counts as secure to them, so make run keeps the __Host- cookie.
func (c config) plainHTTPCookie() bool {
	u, err := url.Parse(c.BaseURL)
	if c.Auth != auth.ModeRequired || err != nil || u.Scheme != "http" {
		return false
	}
	return !edge.IsLoopbackHost(u.Host)
}

// plainHTTPWarning is what the server logs at start when people sign in
// over plain HTTP off loopback, "" when they do not. It names
// LEDGER_ALLOW_PLAIN_HTTP only when that was what allowed it.
func (c config) plainHTTPWarning() string {
	if !c.plainHTTPCookie() {
		return ""
	}
	msg := "people sign in over plain HTTP at " + c.BaseURL + ": passwords, sessions and tokens cross the network in clear"
	if c.AllowPlainHTTP {
		msg += " (allowed by " + envAllowPlainHTTP + "=1)"
	}
	return msg
}
