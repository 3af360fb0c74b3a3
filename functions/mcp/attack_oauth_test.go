package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	ledgerauth "github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
	"github.com/ticket-ledger/ticket-ledger/internal/oauth"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// The authorization server under attack, against the composition root in
// required mode.

func registerClient(t *testing.T, base string, redirects ...string) (*http.Response, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"client_name": "Attacker", "redirect_uris": redirects,
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code"}, "response_types": []string{"code"}})
	resp, err := http.Post(base+oauth.PathRegister, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		ClientID string `json:"client_id"`
	}
	json.NewDecoder(resp.Body).Decode(&out)
	return resp, out.ClientID
}

func signedInPerson(t *testing.T, base string) *person {
	t.Helper()
	p := newPerson(t, "claude")
	resp, _, err := p.do(http.MethodPost, base+"/signin", url.Values{"handle": {"alice"}, "password": {e2ePassword}})
	if err != nil || resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %v %v", err, resp)
	}
	return p
}

// The authorization endpoint was an open redirector: a client registered
// with any https redirect URI, and a signed-in GET /oauth/authorize with
// response_type=token was answered 303 to that site. A request no person
// has seen is now answered with a page that names the problem.
func TestAuthorizeIsNoOpenRedirector(t *testing.T) {
	base, _ := e2eServers(t, e2eStore(t, "sqlite"), oauth.FetchConfig{})
	const evil = "https://evil.example/landing"
	resp, client := registerClient(t, base, evil)
	if resp.StatusCode != http.StatusCreated || client == "" {
		t.Fatalf("registration: %d", resp.StatusCode)
	}
	p := signedInPerson(t, base)
	pkce := strings.Repeat("A", 43)
	for _, q := range []url.Values{
		{"client_id": {client}, "redirect_uri": {evil}, "response_type": {"token"}, "state": {"x"}},
		{"client_id": {client}, "redirect_uri": {evil}, "response_type": {"code"}, "state": {"x"}},
		{"client_id": {client}, "redirect_uri": {evil}, "response_type": {"code"}, "code_challenge": {pkce}, "code_challenge_method": {"plain"}},
		{"client_id": {client}, "redirect_uri": {evil}, "response_type": {"code"}, "code_challenge": {pkce}, "code_challenge_method": {"S256"}, "resource": {"https://other.example/mcp"}},
	} {
		resp, page, err := p.do(http.MethodGet, base+oauth.PathAuthorize+"?"+q.Encode(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusBadRequest || loc != "" || !strings.Contains(page, "cannot connect") {
			t.Errorf("%v: %d Location %q, want a 400 page and no redirect", q, resp.StatusCode, loc)
		}
	}
}

// A registered redirect URI could inject directives into the approval
// page's CSP: its raw origin was spliced into form-action, and a host such
// as [fe80::1%25a;%20frame-ancestors%20*] added frame-ancestors *. Such
// hosts are refused at registration, and the page's CSP has exactly the
// directives the code means, with the origin built from parsed parts.
func TestRedirectURICannotInjectCSP(t *testing.T) {
	base, _ := e2eServers(t, e2eStore(t, "sqlite"), oauth.FetchConfig{})
	for _, bad := range []string{
		"https://[fe80::1%25a;%20frame-ancestors%20*]/cb",
		"https://[fe80::1%25eth0]/cb",
		"https://app.example;frame-ancestors/cb",
		"https://app%20example/cb",
		"https://app.example:99999/cb",
		"https://'app'.example/cb",
		"https://app.example,evil.example/cb",
	} {
		if resp, _ := registerClient(t, base, bad); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("registering %q: %d, want 400", bad, resp.StatusCode)
		}
	}
	good := "https://App.Example:8443/cb"
	_, client := registerClient(t, base, good)
	p := signedInPerson(t, base)
	q := url.Values{"client_id": {client}, "redirect_uri": {good}, "response_type": {"code"}, "state": {"s"},
		"code_challenge": {"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"}, "code_challenge_method": {"S256"}}
	resp, page, err := p.do(http.MethodGet, base+oauth.PathAuthorize+"?"+q.Encode(), nil)
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(page, `name="decision"`) {
		t.Fatalf("approval page: %v %d", err, resp.StatusCode)
	}
	directives := map[string]string{}
	var names []string
	for _, d := range strings.Split(resp.Header.Get("Content-Security-Policy"), ";") {
		f := strings.Fields(d)
		if len(f) == 0 {
			continue
		}
		names = append(names, f[0])
		directives[f[0]] = strings.Join(f[1:], " ")
	}
	want := []string{"default-src", "script-src", "style-src", "img-src", "object-src", "base-uri", "form-action", "frame-ancestors"}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("CSP directives %v, want exactly %v", names, want)
	}
	if directives["form-action"] != "'self' https://app.example:8443" || directives["frame-ancestors"] != "'none'" {
		t.Fatalf("form-action %q, frame-ancestors %q", directives["form-action"], directives["frame-ancestors"])
	}
}

// Registration was unbounded: 200 registrations of about 20 KB each were
// accepted in 0.4 s and kept for a day. Now a registration is at most a
// few KiB, one client address registers at most 10 per 10 minutes (others
// still can), and an unused registration lapses after an hour.
func TestRegistrationIsBounded(t *testing.T) {
	store := e2eStore(t, "sqlite")
	cfg := config{Auth: ledgerauth.ModeRequired, BaseURL: "http://127.0.0.1:8080", Retention: 24 * time.Hour, Store: storeSQLite}
	h, err := newHandler(cfg, store, slog.New(slog.DiscardHandler), mcpserver.HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	register := func(from string, name string) *httptest.ResponseRecorder {
		body, _ := json.Marshal(map[string]any{"client_name": name, "redirect_uris": []string{"https://app.example/cb"}})
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080"+oauth.PathRegister, bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.RemoteAddr = from
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec
	}
	if rec := register("192.0.2.200:1", strings.Repeat("x", 20<<10)); rec.Code != http.StatusBadRequest {
		t.Fatalf("a 20 KB registration: %d, want 400", rec.Code)
	}
	var first string
	for i := range 10 {
		rec := register("192.0.2.1:1", fmt.Sprint("App ", i))
		if rec.Code != http.StatusCreated {
			t.Fatalf("registration %d: %d %s", i, rec.Code, rec.Body.String())
		}
		if i == 0 {
			var out struct {
				ClientID string `json:"client_id"`
			}
			json.Unmarshal(rec.Body.Bytes(), &out)
			first = out.ClientID
		}
	}
	if rec := register("192.0.2.1:2", "App 10"); rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("the 11th registration from one address: %d %v, want 429 with Retry-After", rec.Code, rec.Header())
	}
	if rec := register("192.0.2.2:1", "Another app"); rec.Code != http.StatusCreated {
		t.Fatalf("a registration from another address: %d", rec.Code)
	}
	ctx := context.Background()
	if _, err := store.GetOAuthClient(ctx, first, time.Now().Add(59*time.Minute)); err != nil {
		t.Fatalf("an unused registration within the hour: %v", err)
	}
	if _, err := store.GetOAuthClient(ctx, first, time.Now().Add(61*time.Minute)); !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("an unused registration after an hour: %v, want not found", err)
	}
}

// The per-address and per-instance registration bounds hold in one
// process; many instances together could still fill the store. The
// store-wide cap counts registrations in the store itself: with a cap of 5
// per window, 12 registrations from 12 addresses through 3 instances at
// once store exactly 5, and the other 7 are refused with 429 and
// Retry-After. (The cap is lowered for the test; the default's counting is
// the same code, and the contract suite races the store's count on every
// backend.)
func TestRegistrationCapHoldsAcrossInstances(t *testing.T) {
	for _, backend := range testbackends.Names() {
		t.Run(backend, func(t *testing.T) {
			store := e2eStore(t, backend)
			const perWindow, tries = 5, 12
			cfg := config{Auth: ledgerauth.ModeRequired, BaseURL: "http://127.0.0.1:8080", Retention: 24 * time.Hour, Store: storeSQLite,
				registrationsPerWindow: perWindow}
			instances := make([]http.Handler, 3)
			for i := range instances {
				h, err := newHandler(cfg, store, slog.New(slog.DiscardHandler), mcpserver.HandlerOptions{})
				if err != nil {
					t.Fatal(err)
				}
				instances[i] = h
			}
			// A window turning over during the registrations would let
			// more in; then the round is run again in the new window.
			for round := 0; ; round++ {
				window := time.Now().Truncate(10 * time.Minute)
				codes := make([]int, tries)
				retryAfter := make([]string, tries)
				storetest.Together(tries, func(i int) {
					body, _ := json.Marshal(map[string]any{"client_name": fmt.Sprint("App ", i), "redirect_uris": []string{"https://app.example/cb"}})
					r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080"+oauth.PathRegister, bytes.NewReader(body))
					r.Header.Set("Content-Type", "application/json")
					r.RemoteAddr = fmt.Sprintf("192.0.2.%d:1", round*tries+i+1)
					rec := httptest.NewRecorder()
					instances[i%len(instances)].ServeHTTP(rec, r)
					codes[i], retryAfter[i] = rec.Code, rec.Header().Get("Retry-After")
				})
				if !time.Now().Truncate(10*time.Minute).Equal(window) && round == 0 {
					continue
				}
				created, refused := 0, 0
				for i, code := range codes {
					switch {
					case code == http.StatusCreated:
						created++
					case code == http.StatusTooManyRequests && retryAfter[i] != "":
						refused++
					default:
						t.Errorf("registration %d: %d (Retry-After %q), want 201, or 429 with Retry-After", i, code, retryAfter[i])
					}
				}
				if created != perWindow || refused != tries-perWindow {
					t.Fatalf("%d registrations stored and %d refused; want %d and %d", created, refused, perWindow, tries-perWindow)
				}
				return
			}
		})
	}
}
