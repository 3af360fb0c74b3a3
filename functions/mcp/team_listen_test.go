package main

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	ledgerauth "github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
)

// Loopback mode has no sign-in: it refuses every address off loopback,
// whatever else is set, and says what to use instead.
func TestTeamLoopbackModeStaysOnLoopback(t *testing.T) {
	for _, ok := range []string{"127.0.0.1:8080", "[::1]:9", "localhost:1"} {
		cfg, err := loadConfig(env(map[string]string{"LEDGER_ADDR": ok}))
		if err != nil {
			t.Fatal(err)
		}
		if err := checkListen(cfg); err != nil {
			t.Errorf("%s refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"0.0.0.0:8080", ":8080", "192.168.1.2:80", "example.com:80"} {
		cfg, err := loadConfig(env(map[string]string{"LEDGER_ADDR": bad, "LEDGER_BASE_URL": "https://board.example.com",
			"LEDGER_ALLOW_PLAIN_HTTP": "1"}))
		if err != nil {
			t.Fatal(err)
		}
		if err := checkListen(cfg); err == nil || !strings.Contains(err.Error(), "not a loopback address") || !strings.Contains(err.Error(), "LEDGER_AUTH=required") {
			t.Errorf("loopback mode on %s: %v, want a refusal that points to required mode", bad, err)
		}
	}
}

// Required mode listens anywhere behind https; off loopback without https
// it refuses unless plain HTTP is allowed on purpose, and says why.
func TestTeamRequiredModeListens(t *testing.T) {
	for _, c := range []struct {
		name string
		kv   map[string]string
		want string // "" accepted, else part of the refusal
	}{
		{"https base URL", map[string]string{"LEDGER_BASE_URL": "https://board.example.com"}, ""},
		{"no base URL", map[string]string{}, "LEDGER_BASE_URL is not set"},
		{"plain http base URL", map[string]string{"LEDGER_BASE_URL": "http://board.example.com"}, `LEDGER_BASE_URL="http://board.example.com" is not https`},
		{"plain http allowed", map[string]string{"LEDGER_BASE_URL": "http://board.lan:8080", "LEDGER_ALLOW_PLAIN_HTTP": "1"}, ""},
		{"no base URL, plain http allowed", map[string]string{"LEDGER_ALLOW_PLAIN_HTTP": "true"}, ""},
		{"plain http not allowed", map[string]string{"LEDGER_BASE_URL": "http://board.lan", "LEDGER_ALLOW_PLAIN_HTTP": "0"}, "in clear"},
	} {
		t.Run(c.name, func(t *testing.T) {
			kv := map[string]string{"LEDGER_AUTH": "required", "LEDGER_ADDR": "0.0.0.0:8080"}
			for k, v := range c.kv {
				kv[k] = v
			}
			cfg, err := loadConfig(env(kv))
			if err != nil {
				t.Fatal(err)
			}
			err = checkListen(cfg)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && err == nil:
				t.Fatalf("accepted; want a refusal naming %q", c.want)
			case c.want != "":
				for _, part := range []string{c.want, "passwords, session cookies and tokens would cross the network in clear", "LEDGER_ALLOW_PLAIN_HTTP=1"} {
					if !strings.Contains(err.Error(), part) {
						t.Errorf("refusal %q does not say %q", err, part)
					}
				}
			}
		})
	}
	// On loopback, required mode needs nothing more (make run, a proxy on
	// the same machine forwarding an https name).
	for _, base := range []string{"", "https://board.example.com"} {
		cfg, err := loadConfig(env(map[string]string{"LEDGER_AUTH": "required", "LEDGER_BASE_URL": base}))
		if err != nil || checkListen(cfg) != nil {
			t.Fatalf("required mode on the default loopback address, LEDGER_BASE_URL=%q: %v, %v", base, err, checkListen(cfg))
		}
	}
}

// A plain-http public URL naming another machine was accepted when the
// server listened on loopback (a proxy on the same machine, docs/team.md's
// layout): people then signed in over the network in clear, with a
// session cookie without Secure. In required mode such a URL is refused
// whatever the listen address, unless plain HTTP is allowed on purpose; a
// loopback URL stays allowed (nothing crosses a network), and the cookie
// is Secure whenever the public URL is https or loopback.
func TestTeamPlainHTTPPublicURLRefusedOnLoopbackToo(t *testing.T) {
	for _, c := range []struct {
		name, addr, base, allow string
		refused                 bool
		secure                  bool // the session cookie, when accepted
	}{
		{"plain http name, loopback listener", "127.0.0.1:8080", "http://board.example.com", "", true, false},
		{"plain http name, ::1 listener", "[::1]:8080", "http://board.example.com:8080", "", true, false},
		{"plain http name, localhost listener, allowance off", "localhost:8080", "http://board.lan", "0", true, false},
		{"plain http name, every address", "0.0.0.0:8080", "http://board.example.com", "", true, false},
		{"plain http name allowed on purpose", "127.0.0.1:8080", "http://board.lan:8080", "1", false, false},
		{"https name, loopback listener", "127.0.0.1:8080", "https://board.example.com", "", false, true},
		{"loopback address", "127.0.0.1:8080", "http://127.0.0.1:8080", "", false, true},
		{"localhost", "127.0.0.1:8080", "http://localhost:8080", "", false, true},
		{"::1", "[::1]:8080", "http://[::1]:8080", "", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := loadConfig(env(map[string]string{"LEDGER_AUTH": "required", "LEDGER_ADDR": c.addr, "LEDGER_BASE_URL": c.base,
				"LEDGER_ALLOW_PLAIN_HTTP": c.allow}))
			if err != nil {
				t.Fatal(err)
			}
			err = checkListen(cfg)
			if c.refused {
				if err == nil {
					t.Fatalf("LEDGER_BASE_URL=%s on %s started; want a refusal", c.base, c.addr)
				}
				for _, part := range []string{`LEDGER_BASE_URL="` + c.base + `" is not https`, "would cross the network in clear", "LEDGER_ALLOW_PLAIN_HTTP=1", "LEDGER_BASE_URL=https://"} {
					if !strings.Contains(err.Error(), part) {
						t.Errorf("refusal %q does not say %q", err, part)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if got := !cfg.plainHTTPCookie(); got != c.secure {
				t.Errorf("session cookie Secure = %v, want %v", got, c.secure)
			}
		})
	}
	// Loopback mode has no sign-in and no cookie to protect: its links may
	// name any host.
	cfg, err := loadConfig(env(map[string]string{"LEDGER_BASE_URL": "http://board.example.com"}))
	if err != nil || checkListen(cfg) != nil {
		t.Fatalf("loopback mode with a plain http LEDGER_BASE_URL: %v, %v", err, checkListen(cfg))
	}
}

// The warning a server logs when people sign in over plain HTTP names
// LEDGER_ALLOW_PLAIN_HTTP only when it was set: it used to claim so for a
// server that had started without it.
func TestTeamPlainHTTPWarningNamesTheAllowanceOnlyWhenSet(t *testing.T) {
	for _, c := range []struct {
		cfg  config
		want string // "" no warning; else part of it
		not  string // must not appear
	}{
		{config{Auth: ledgerauth.ModeRequired, BaseURL: "http://board.lan:8080", BaseURLSet: true, AllowPlainHTTP: true}, "(allowed by LEDGER_ALLOW_PLAIN_HTTP=1)", ""},
		{config{Auth: ledgerauth.ModeRequired, BaseURL: "http://0.0.0.0:8080", AllowPlainHTTP: true}, "plain HTTP at http://0.0.0.0:8080", ""},
		{config{Auth: ledgerauth.ModeRequired, BaseURL: "http://board.lan", BaseURLSet: true, lambda: true}, "plain HTTP at http://board.lan", "LEDGER_ALLOW_PLAIN_HTTP"},
		{config{Auth: ledgerauth.ModeRequired, BaseURL: "https://board.example.com", BaseURLSet: true, AllowPlainHTTP: true}, "", ""},
		{config{Auth: ledgerauth.ModeRequired, BaseURL: "http://127.0.0.1:8080", AllowPlainHTTP: true}, "", ""},
		{config{Auth: ledgerauth.ModeLoopback, BaseURL: "http://board.lan", BaseURLSet: true}, "", ""},
	} {
		got := c.cfg.plainHTTPWarning()
		switch {
		case c.want == "" && got != "":
			t.Errorf("%s (allowed %v): warned %q, want nothing", c.cfg.BaseURL, c.cfg.AllowPlainHTTP, got)
		case c.want != "" && !strings.Contains(got, c.want):
			t.Errorf("%s (allowed %v): warned %q, want it to say %q", c.cfg.BaseURL, c.cfg.AllowPlainHTTP, got, c.want)
		case c.not != "" && strings.Contains(got, c.not):
			t.Errorf("%s (allowed %v): warned %q, which names %s although it was not set", c.cfg.BaseURL, c.cfg.AllowPlainHTTP, got, c.not)
		}
	}
}

// LEDGER_BASE_URL is an origin: bad values are refused with the reason,
// good ones kept without a trailing slash and with the host in lower case.
func TestTeamBaseURLIsChecked(t *testing.T) {
	for raw, want := range map[string]string{
		"board.example.com":                 "not an http or https URL",
		"ftp://board.example.com":           "not an http or https URL",
		"https://":                          "has no host",
		"https://:443":                      "has no host",
		"https://user:pw@board.example.com": "carries a user name",
		"https://board.example.com/ledger":  "has a path",
		"https://board.example.com/?x=1":    "has a path, query or fragment",
		"https://board.example.com:99999":   "bad port",
		"https://bo ard.example.com":        "not a URL",
	} {
		_, err := loadConfig(env(map[string]string{"LEDGER_BASE_URL": raw}))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "LEDGER_BASE_URL") {
			t.Errorf("LEDGER_BASE_URL=%q: %v, want a refusal saying %q", raw, err, want)
		}
	}
	for raw, want := range map[string]string{
		"https://Board.Example.com/":     "https://board.example.com",
		"http://127.0.0.1:8080":          "http://127.0.0.1:8080",
		"https://[2001:db8::1]:8443":     "https://[2001:db8::1]:8443",
		"https://board.example.com:8443": "https://board.example.com:8443",
	} {
		c, err := loadConfig(env(map[string]string{"LEDGER_BASE_URL": raw}))
		if err != nil || c.BaseURL != want || !c.BaseURLSet {
			t.Errorf("LEDGER_BASE_URL=%q: %q (set %v), %v; want %q", raw, c.BaseURL, c.BaseURLSet, err, want)
		}
	}
}

// LEDGER_TRUSTED_PROXIES is a list of CIDRs (or single addresses); a bad
// entry is named. None is trusted unless listed.
func TestTeamTrustedProxiesAreChecked(t *testing.T) {
	c, err := loadConfig(env(nil))
	if err != nil || len(c.TrustedProxies) != 0 {
		t.Fatalf("default trusted proxies = %v, %v; want none", c.TrustedProxies, err)
	}
	c, err = loadConfig(env(map[string]string{"LEDGER_TRUSTED_PROXIES": " 127.0.0.1/32, 10.1.2.3/8,::1 ,192.0.2.9,"}))
	want := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("::1/128"), netip.MustParsePrefix("192.0.2.9/32")}
	if err != nil || !slices.Equal(c.TrustedProxies, want) {
		t.Fatalf("trusted proxies = %v, %v; want %v", c.TrustedProxies, err, want)
	}
	for _, bad := range []string{"10.0.0.0/33", "proxy.internal", "10.0.0.0/8;", "fe80::1%eth0"} {
		_, err := loadConfig(env(map[string]string{"LEDGER_TRUSTED_PROXIES": "127.0.0.1/32," + bad}))
		if err == nil || !strings.Contains(err.Error(), "LEDGER_TRUSTED_PROXIES") || !strings.Contains(err.Error(), strings.TrimSpace(bad)) || !strings.Contains(err.Error(), "not a CIDR") {
			t.Errorf("LEDGER_TRUSTED_PROXIES with %q: %v, want a refusal naming it", bad, err)
		}
	}
}

// Lambda holds LEDGER_BASE_URL to the same rule before it opens anything:
// a plain-http custom domain would otherwise give people a session cookie
// without Secure.
func TestTeamLambdaRefusesAPlainHTTPPublicURL(t *testing.T) {
	_, err := newLambdaFunction(t.Context(), lambdaGetenv(mapEnv(map[string]string{envBaseURL: "http://board.example.com"})), slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), `LEDGER_BASE_URL="http://board.example.com" is not https`) {
		t.Fatalf("Lambda with a plain-http LEDGER_BASE_URL: %v, want a refusal", err)
	}
}

// REST had no DNS-rebinding protection in loopback mode: with Host
// evil.example it listed workspaces and created a ticket as the local
// agent, while the board and /mcp each refused with a check of their own.
// Now one check in front of the routes refuses a non-loopback Host on every
// surface, and nothing is written.
func TestRebindingHostRefusedOnEverySurface(t *testing.T) {
	store := e2eStore(t, "sqlite")
	cfg := config{Auth: ledgerauth.ModeLoopback, Author: "ai:agent", BaseURL: "http://127.0.0.1:8080", Retention: 24 * time.Hour, Store: storeSQLite}
	h, err := newHandler(cfg, store, slog.New(slog.DiscardHandler), mcpserver.HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	create := `{"title":"written through a rebinding page"}`
	requests := []struct{ name, method, path, body string }{
		{"board", http.MethodGet, "/", ""},
		{"board workspace", http.MethodGet, "/w/inbox", ""},
		{"static", http.MethodGet, "/static/app.css", ""},
		{"health", http.MethodGet, "/healthz", ""},
		{"mcp", http.MethodPost, "/mcp", initialize},
		{"rest list", http.MethodGet, "/api/v1/workspaces", ""},
		{"rest create", http.MethodPost, "/api/v1/workspaces/inbox/tickets", create},
		{"oauth metadata", http.MethodGet, "/.well-known/oauth-authorization-server", ""},
	}
	send := func(host, method, path, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "http://"+host+path, strings.NewReader(body))
		r.Host = host
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			r.Header.Set("Origin", "http://"+host)
			r.Header.Set("Sec-Fetch-Site", "same-origin")
			r.Header.Set("Idempotency-Key", "rebind-1")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec
	}
	for _, host := range []string{"evil.example:8080", "evil.example", "127.0.0.1.evil.example:8080", "[fe80::1]:8080", "10.0.0.1:8080"} {
		for _, c := range requests {
			if rec := send(host, c.method, c.path, c.body); rec.Code != http.StatusMisdirectedRequest {
				t.Errorf("%s with Host %s: %d, want 421\n%s", c.name, host, rec.Code, rec.Body.String())
			}
		}
	}
	ws, err := store.GetWorkspace(context.Background(), "inbox")
	if err != nil {
		t.Fatal(err)
	}
	for status, n := range ws.Counts {
		if n != 0 {
			t.Fatalf("%d %s tickets after refused requests; want none written", n, status)
		}
	}
	// The same requests on a loopback name are served.
	for _, host := range []string{"127.0.0.1:8080", "localhost:8080", "[::1]:8080"} {
		if rec := send(host, http.MethodGet, "/api/v1/workspaces", ""); rec.Code != http.StatusOK {
			t.Errorf("REST with Host %s: %d, want 200", host, rec.Code)
		}
		if rec := send(host, http.MethodGet, "/", ""); rec.Code != http.StatusOK {
			t.Errorf("the board with Host %s: %d, want 200", host, rec.Code)
		}
	}
}

// Required mode on loopback without LEDGER_BASE_URL (LEDGER_AUTH=required
// make run) had no Host check: a DNS-rebinding page (evil.example
// resolving to 127.0.0.1) reached the sign-in form, OAuth registration and
// every other surface. It answers to loopback names only now, as loopback
// mode does, and believes no forwarded Host; /healthz alone answers on any
// Host.
func TestRebindingHostRefusedInRequiredModeOnLoopback(t *testing.T) {
	cfg, err := loadConfig(env(map[string]string{"LEDGER_AUTH": "required", "LEDGER_TRUSTED_PROXIES": "127.0.0.0/8"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkListen(cfg); err != nil {
		t.Fatal(err)
	}
	h, err := newHandler(cfg, e2eStore(t, "sqlite"), slog.New(slog.DiscardHandler), mcpserver.HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	signIn := "handle=alice&password=guessing-a-password"
	requests := []struct{ name, method, path, body, contentType string }{
		{"sign-in page", http.MethodGet, "/signin", "", ""},
		{"sign-in form", http.MethodPost, "/signin", signIn, "application/x-www-form-urlencoded"},
		{"OAuth registration", http.MethodPost, "/oauth/register", `{"redirect_uris":["http://127.0.0.1:9/cb"]}`, "application/json"},
		{"OAuth metadata", http.MethodGet, "/.well-known/oauth-authorization-server", "", ""},
		{"invitation", http.MethodGet, "/invite/x", "", ""},
		{"mcp", http.MethodPost, "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "application/json"},
		{"rest", http.MethodGet, "/api/v1/workspaces", "", ""},
		{"health by another method", http.MethodPost, "/healthz", "", ""},
	}
	send := func(host, method, path, body, contentType string, headers ...string) *httptest.ResponseRecorder {
		r := teamRequest(method, path, host, "127.0.0.1:50000", body, headers...)
		if contentType != "" {
			r.Header.Set("Content-Type", contentType)
			r.Header.Set("Origin", "http://"+host)
			r.Header.Set("Sec-Fetch-Site", "same-origin")
		}
		return serve(h, r)
	}
	for _, host := range []string{"evil.example:8080", "evil.example", "127.0.0.1.evil.example:8080", "10.0.0.1:8080"} {
		for _, c := range requests {
			if rec := send(host, c.method, c.path, c.body, c.contentType); rec.Code != http.StatusMisdirectedRequest {
				t.Errorf("%s with Host %s: %d, want 421\n%s", c.name, host, rec.Code, rec.Body.String())
			}
		}
		// A forwarded loopback name from the loopback address itself is
		// what a rebinding page can send: not believed.
		if rec := send(host, http.MethodGet, "/signin", "", "", "X-Forwarded-Host", "127.0.0.1:8080"); rec.Code != http.StatusMisdirectedRequest {
			t.Errorf("Host %s with X-Forwarded-Host 127.0.0.1:8080: %d, want 421", host, rec.Code)
		}
		if rec := send(host, http.MethodGet, "/healthz", "", ""); rec.Code != http.StatusOK {
			t.Errorf("/healthz with Host %s: %d, want 200 (any Host)", host, rec.Code)
		}
	}
	for _, host := range []string{"127.0.0.1:8080", "localhost:8080", "[::1]:8080"} {
		if rec := send(host, http.MethodGet, "/signin", "", ""); rec.Code != http.StatusOK {
			t.Errorf("the sign-in page with Host %s: %d, want 200", host, rec.Code)
		}
		if rec := send(host, http.MethodGet, "/api/v1/workspaces", "", ""); rec.Code != http.StatusUnauthorized {
			t.Errorf("REST without a credential, Host %s: %d, want 401 (past the Host check)", host, rec.Code)
		}
	}
}
