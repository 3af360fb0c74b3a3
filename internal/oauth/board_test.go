package oauth_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/oauth"
)

// The approval page is a page of the board: it signs the person in first,
// shows which app asks and where the browser goes back to, suggests the
// agent's name from the app's, and carries the board's security headers
// with a form-action that allows only the redirect's origin besides the
// board. Deny sends access_denied back; a cross-site post is refused.
func TestApprovalPage(t *testing.T) {
	e := newEnv(t, "sqlite", oauth.FetchConfig{})
	redirect := "https://claude.ai/api/mcp/auth_callback"
	clientID := e.register("Claude", redirect)
	q := authRequest(clientID, redirect, newPKCE(), "xyz", e.url+"/mcp")
	target := e.url + oauth.PathAuthorize + "?" + q.Encode()

	b := e.browser()
	r := b.get(target)
	if r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/signin?next=") {
		t.Fatalf("not signed in: HTTP %d Location %q, want the sign-in page", r.status, r.header.Get("Location"))
	}
	next := r.location(t).Query().Get("next")
	r = b.post(e.url+"/signin", url.Values{"handle": {"alice"}, "password": {testPassword}, "next": {next}})
	if r.status != http.StatusSeeOther || e.url+r.header.Get("Location") != target {
		t.Fatalf("sign in: HTTP %d Location %q, want back to %s", r.status, r.header.Get("Location"), target)
	}
	page := b.get(target)
	wantStatus(t, "approval page", page, http.StatusOK)
	for _, want := range []string{"Connect Claude?", "human:alice", "registered itself", "https://claude.ai",
		`name="agent_name"`, `value="claude"`, `name="decision" value="allow"`, `name="decision" value="deny"`, `hx-boost="false"`} {
		if !strings.Contains(page.body, want) {
			t.Errorf("approval page lacks %q", want)
		}
	}
	csp := page.header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "form-action 'self' https://claude.ai;") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("approval page CSP %q", csp)
	}
	if page.header.Get("X-Frame-Options") != "DENY" || page.header.Get("Cache-Control") != "no-store" {
		t.Errorf("approval page headers %v", page.header)
	}

	form := formFields(page.body)
	form.Set("agent_name", "claude")
	form.Set("decision", "allow")
	req, _ := http.NewRequest(http.MethodPost, e.url+oauth.PathAuthorize, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	if r := do(t, b.client, req); r.status != http.StatusForbidden {
		t.Fatalf("a cross-site approval: HTTP %d, want 403", r.status)
	}

	form.Set("agent_name", "two words")
	r = b.post(e.url+oauth.PathAuthorize, form)
	if r.status != http.StatusBadRequest || !strings.Contains(r.body, "agent name") {
		t.Fatalf("a bad agent name: HTTP %d, want 400 (invalid) with the rule", r.status)
	}

	form.Set("decision", "deny")
	r = b.post(e.url+oauth.PathAuthorize, form)
	loc := r.location(t)
	if r.status != http.StatusSeeOther || loc.Host != "claude.ai" || loc.Query().Get("error") != "access_denied" ||
		loc.Query().Get("state") != "xyz" || loc.Query().Get("iss") != e.url || loc.Query().Get("code") != "" {
		t.Fatalf("deny: HTTP %d to %s, want access_denied with state and iss", r.status, loc)
	}

	// A tampered hidden field is checked again: another redirect_uri is
	// not sent anywhere.
	form.Set("decision", "allow")
	form.Set("agent_name", "claude")
	form.Set("redirect_uri", "https://evil.example/cb")
	r = b.post(e.url+oauth.PathAuthorize, form)
	if r.status != http.StatusBadRequest || r.header.Get("Location") != "" {
		t.Fatalf("a tampered redirect_uri: HTTP %d Location %q, want 400 and no redirect", r.status, r.header.Get("Location"))
	}
}

var revokeAction = regexp.MustCompile(`action="/agents/([0-9a-f]{16})/revoke"`)

// Connected agents lists a person's grants (app, agent, last used) and
// revokes them; the revocation stops the next call on another instance.
// Nobody sees or revokes another person's.
func TestConnectedAgents(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, oauth.FetchConfig{})
		second := e.serve(e.store, e.url) // another instance of the same deployment
		alice := e.signedIn("alice")
		tok := e.grant(alice, "claude", "")
		wantStatus(t, "a call on the second instance", e.api(second, tok.access), http.StatusOK)

		page := alice.get(e.url + "/agents")
		wantStatus(t, "Connected agents", page, http.StatusOK)
		for _, want := range []string{"Test Client", "ai:claude", "Disconnect"} {
			if !strings.Contains(page.body, want) {
				t.Fatalf("Connected agents lacks %q:\n%s", want, page.body)
			}
		}
		if strings.Contains(page.body, ">never<") {
			t.Fatal("Connected agents says never used after a call")
		}
		m := revokeAction.FindStringSubmatch(page.body)
		if m == nil {
			t.Fatal("no revoke form")
		}
		bob := e.signedIn("bob")
		if page := bob.get(e.url + "/agents"); strings.Contains(page.body, "ai:claude") {
			t.Fatal("bob sees alice's connected agent")
		}
		if r := bob.post(e.url+"/agents/"+m[1]+"/revoke", url.Values{}); r.status != http.StatusNotFound {
			t.Fatalf("bob revoking alice's agent: HTTP %d, want 404", r.status)
		}
		wantStatus(t, "still working after bob's attempt", e.api(second, tok.access), http.StatusOK)

		if r := alice.post(e.url+"/agents/"+m[1]+"/revoke", url.Values{}); r.status != http.StatusSeeOther {
			t.Fatalf("revoke: HTTP %d %q", r.status, r.body)
		}
		wantRefused(t, "the next call on the other instance", e.api(second, tok.access))
		wantRefused(t, "the next MCP call", e.mcp(second, tok.access))
		wantOAuthError(t, "refreshing a revoked grant", e.refresh(tok), http.StatusBadRequest, "invalid_grant")
		if page := alice.get(e.url + "/agents"); strings.Contains(page.body, "ai:claude") {
			t.Fatal("the revoked agent is still listed")
		}
	})
}
