package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/oauth"
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
