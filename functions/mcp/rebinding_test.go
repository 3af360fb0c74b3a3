package main

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	ledgerauth "github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
)

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
