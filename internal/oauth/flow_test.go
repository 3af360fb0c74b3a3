package oauth_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/oauth"
)

// Metadata: RFC 8414 with every field the server promises, RFC 9728 for
// /mcp and for the whole server, both readable by the go-sdk's own
// discovery (which checks issuer and resource).
func TestMetadata(t *testing.T) {
	e := newEnv(t, "sqlite", oauth.FetchConfig{})
	r := e.get(oauth.PathServerMetadata, nil)
	wantStatus(t, "AS metadata", r, http.StatusOK)
	m := r.json(t)
	want := map[string]any{
		"issuer":                                         e.url,
		"authorization_endpoint":                         e.url + "/oauth/authorize",
		"token_endpoint":                                 e.url + "/oauth/token",
		"registration_endpoint":                          e.url + "/oauth/register",
		"revocation_endpoint":                            e.url + "/oauth/revoke",
		"client_id_metadata_document_supported":          true,
		"authorization_response_iss_parameter_supported": true,
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("AS metadata %s = %v, want %v", k, m[k], v)
		}
	}
	lists := map[string][]string{
		"code_challenge_methods_supported":      {"S256"},
		"token_endpoint_auth_methods_supported": {"none"},
		"grant_types_supported":                 {"authorization_code", "refresh_token"},
		"response_types_supported":              {"code"},
	}
	for k, v := range lists {
		got, _ := m[k].([]any)
		if len(got) != len(v) {
			t.Errorf("AS metadata %s = %v, want %v", k, m[k], v)
			continue
		}
		for i := range v {
			if got[i] != v[i] {
				t.Errorf("AS metadata %s = %v, want %v", k, m[k], v)
			}
		}
	}
	if _, ok := m["jwks_uri"]; ok {
		t.Errorf("AS metadata has jwks_uri %v; the server signs nothing", m["jwks_uri"])
	}
	if r.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("AS metadata is not readable cross-origin: %v", r.header)
	}
	ctx := context.Background()
	asm, err := oauthex.GetAuthServerMeta(ctx, e.url+oauth.PathServerMetadata, e.url, nil)
	if err != nil || asm == nil || !asm.ClientIDMetadataDocumentSupported {
		t.Fatalf("the go-sdk reads the AS metadata: %+v %v", asm, err)
	}
	for path, resource := range map[string]string{oauth.PathResourceMetadataMCP: e.url + "/mcp", oauth.PathResourceMetadata: e.url} {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, e.url+path, resource, nil)
		if err != nil {
			t.Fatalf("the go-sdk reads %s: %v", path, err)
		}
		if len(prm.AuthorizationServers) != 1 || prm.AuthorizationServers[0] != e.url {
			t.Fatalf("%s authorization_servers = %v, want [%s]", path, prm.AuthorizationServers, e.url)
		}
	}
}

// A 401 names the resource metadata of what was asked for (RFC 9728 §5.1),
// on MCP and REST, with and without a (bad) token.
func TestChallengeNamesResourceMetadata(t *testing.T) {
	e := newEnv(t, "sqlite", oauth.FetchConfig{})
	cases := []struct {
		what, token string
		call        func(base, token string) response
		metadata    string
	}{
		{"MCP without a credential", "", e.mcp, e.url + oauth.PathResourceMetadataMCP},
		{"MCP with an unknown token", "tla_0123456789abcdef." + strings.Repeat("A", 43), e.mcp, e.url + oauth.PathResourceMetadataMCP},
		{"REST with a malformed token", "tla_nope", e.api, e.url + oauth.PathResourceMetadata},
	}
	for _, c := range cases {
		r := c.call(e.url, c.token)
		if r.status != http.StatusUnauthorized {
			t.Fatalf("%s: HTTP %d", c.what, r.status)
		}
		challenges, err := oauthex.ParseWWWAuthenticate(r.header.Values("WWW-Authenticate"))
		if err != nil || len(challenges) != 1 || challenges[0].Scheme != "bearer" {
			t.Fatalf("%s: WWW-Authenticate %q (%v)", c.what, r.header.Values("WWW-Authenticate"), err)
		}
		if got := challenges[0].Params["resource_metadata"]; got != c.metadata {
			t.Errorf("%s: resource_metadata %q, want %q", c.what, got, c.metadata)
		}
		if wantErr := c.token != ""; (challenges[0].Params["error"] == "invalid_token") != wantErr {
			t.Errorf("%s: error=%q", c.what, challenges[0].Params["error"])
		}
	}
}

// The whole code flow over HTTP: registration, approval, code exchange,
// calls as ai:<name> for the person, refresh. State is echoed, iss sent,
// token answers are never cached, and the agent's writes carry its name and
// its person.
func TestCodeFlow(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, oauth.FetchConfig{})
		redirect := "http://localhost:53682/callback?keep=1"
		clientID := e.register("Claude", redirect)
		if !strings.HasPrefix(clientID, "tlc_") {
			t.Fatalf("client_id %q", clientID)
		}
		b := e.signedIn("alice")
		p := newPKCE()
		loc := b.approve(authRequest(clientID, redirect, p, "state with spaces & more", e.url+"/mcp"), "claude")
		q := loc.Query()
		if loc.Host != "localhost:53682" || loc.Path != "/callback" || q.Get("keep") != "1" {
			t.Fatalf("redirected to %s, want the registered redirect URI with its own query", loc)
		}
		if q.Get("state") != "state with spaces & more" || q.Get("iss") != e.url || q.Get("code") == "" {
			t.Fatalf("redirect query %v: want state echoed, iss %s and a code", q, e.url)
		}
		r := e.postForm(oauth.PathToken, url.Values{"grant_type": {"authorization_code"}, "code": {q.Get("code")}, "redirect_uri": {redirect},
			"client_id": {clientID}, "code_verifier": {p.verifier}, "resource": {e.url + "/mcp"}}, nil)
		wantStatus(t, "code exchange", r, http.StatusOK)
		if r.header.Get("Cache-Control") != "no-store" || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
			t.Fatalf("token answer headers %v", r.header)
		}
		m := r.json(t)
		access, refresh := m["access_token"].(string), m["refresh_token"].(string)
		if m["token_type"] != "Bearer" || m["expires_in"] != float64(3600) || !strings.HasPrefix(access, "tla_") || !strings.HasPrefix(refresh, "tlr_") {
			t.Fatalf("token answer %v", m)
		}
		wantStatus(t, "MCP with the access token", e.mcp(e.url, access), http.StatusOK)

		// The agent writes as ai:claude for human:alice (over MCP's
		// sibling, REST, with the same resolver), hidden workspaces stay
		// hidden from it.
		full := e.grant(b, "claude", "") // the whole server: REST too
		cr := e.createTicket(full.access, "oauth-key-1", "written by the connected agent")
		wantStatus(t, "create over REST", cr, http.StatusCreated)
		ticket := cr.json(t)["ticket"].(map[string]any)
		if ticket["created_by"] != "ai:claude" {
			t.Fatalf("created_by %v, want ai:claude", ticket["created_by"])
		}
		ctx := board.WithPrincipal(context.Background(), board.Principal{Author: "human:alice"})
		recs, err := e.store.ListEvents(ctx, "inbox", 5)
		if err != nil || len(recs) == 0 || recs[0].Author != "ai:claude" || recs[0].OnBehalfOf != "human:alice" {
			t.Fatalf("the event of the write: %+v %v, want ai:claude for human:alice", recs, err)
		}
		if ws := e.api(e.url, full.access).body; strings.Contains(ws, `"private"`) {
			t.Fatalf("the agent sees the hidden workspace: %s", ws)
		}

		// Refresh: a new pair; the namespace of the agent stays the same,
		// so a retry of the write replays.
		r = e.refresh(full)
		wantStatus(t, "refresh", r, http.StatusOK)
		m = r.json(t)
		next := tokens{access: m["access_token"].(string), refresh: m["refresh_token"].(string), clientID: full.clientID}
		if next.access == full.access || next.refresh == full.refresh {
			t.Fatal("refresh answered the same tokens")
		}
		again := e.createTicket(next.access, "oauth-key-1", "written by the connected agent")
		if again.status != http.StatusCreated || again.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("the retry after the refresh: HTTP %d %v, want the replay", again.status, again.header)
		}
		wantStatus(t, "the old access token until it expires", e.api(e.url, full.access), http.StatusOK)
		wantStatus(t, "the /mcp grant's token is untouched", e.mcp(e.url, access), http.StatusOK)
		_ = refresh
	})
}

// PKCE S256 is required: no challenge, plain, a wrong or missing verifier.
func TestPKCE(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, oauth.FetchConfig{})
		redirect := "https://app.example/callback"
		clientID := e.register("App", redirect)
		b := e.signedIn("alice")
		for _, c := range []struct {
			what  string
			edit  func(q url.Values)
			error string
		}{
			{"no code_challenge", func(q url.Values) { q.Del("code_challenge"); q.Del("code_challenge_method") }, "invalid_request"},
			{"plain", func(q url.Values) { q.Set("code_challenge_method", "plain") }, "invalid_request"},
			{"no method", func(q url.Values) { q.Del("code_challenge_method") }, "invalid_request"},
			{"a challenge that is no S256 value", func(q url.Values) { q.Set("code_challenge", "short") }, "invalid_request"},
			{"response_type token", func(q url.Values) { q.Set("response_type", "token") }, "unsupported_response_type"},
			{"a resource served elsewhere", func(q url.Values) { q.Set("resource", "https://other.example/mcp") }, "invalid_target"},
		} {
			q := authRequest(clientID, redirect, newPKCE(), "s-"+c.what, "")
			c.edit(q)
			// A refused request that no person has seen is a page naming
			// the problem, never a redirect: otherwise any registered
			// redirect URI makes this server an open redirector.
			r := b.get(e.url + oauth.PathAuthorize + "?" + q.Encode())
			if r.status != http.StatusBadRequest || r.header.Get("Location") != "" || !strings.Contains(r.body, c.error) {
				t.Fatalf("%s: HTTP %d Location %q, want 400 with a page naming %s and no redirect", c.what, r.status, r.header.Get("Location"), c.error)
			}
		}

		p := newPKCE()
		code := b.approve(authRequest(clientID, redirect, p, "s", ""), "claude").Query().Get("code")
		exchange := func(verifier *string) response {
			f := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect}, "client_id": {clientID}}
			if verifier != nil {
				f.Set("code_verifier", *verifier)
			}
			return e.postForm(oauth.PathToken, f, nil)
		}
		wantOAuthError(t, "no code_verifier", exchange(nil), http.StatusBadRequest, "invalid_request")
		wrong := newPKCE().verifier
		wantOAuthError(t, "a wrong code_verifier", exchange(&wrong), http.StatusBadRequest, "invalid_grant")
		wantOAuthError(t, "the challenge as verifier", exchange(&p.challenge), http.StatusBadRequest, "invalid_grant")
		wantStatus(t, "the right verifier", exchange(&p.verifier), http.StatusOK)
	})
}

// A code works once: a second exchange fails and revokes what the first
// one gave (RFC 6749 §4.1.2).
func TestCodeReuse(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, oauth.FetchConfig{})
		redirect := "https://app.example/callback"
		clientID := e.register("App", redirect)
		p := newPKCE()
		code := e.signedIn("alice").approve(authRequest(clientID, redirect, p, "s", ""), "claude").Query().Get("code")
		form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect}, "client_id": {clientID},
			"code_verifier": {p.verifier}}
		first := e.postForm(oauth.PathToken, form, nil)
		wantStatus(t, "first exchange", first, http.StatusOK)
		tok := tokens{access: first.json(t)["access_token"].(string), refresh: first.json(t)["refresh_token"].(string), clientID: clientID}
		wantStatus(t, "the first exchange's token", e.api(e.url, tok.access), http.StatusOK)
		wantOAuthError(t, "second exchange", e.postForm(oauth.PathToken, form, nil), http.StatusBadRequest, "invalid_grant")
		wantRefused(t, "the first exchange's access token after the reuse", e.api(e.url, tok.access))
		wantOAuthError(t, "the first exchange's refresh token after the reuse", e.refresh(tok), http.StatusBadRequest, "invalid_grant")
		wantOAuthError(t, "an unknown code", e.postForm(oauth.PathToken, url.Values{"grant_type": {"authorization_code"},
			"code": {strings.Repeat("x", 43)}, "redirect_uri": {redirect}, "client_id": {clientID}, "code_verifier": {p.verifier}}, nil),
			http.StatusBadRequest, "invalid_grant")
	})
}

// Redirect URIs: only registered ones (a loopback one on any port); a
// request naming another is shown to the person, never sent anywhere; the
// token request must name the same one; registration takes https or
// loopback http only.
func TestRedirectURIs(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, oauth.FetchConfig{})
		clientID := e.register("Claude Code", "http://localhost/callback", "https://claude.example/api/mcp/auth_callback")
		b := e.signedIn("alice")
		for _, bad := range []string{"https://evil.example/callback", "https://claude.example/api/mcp/auth_callback/x",
			"http://localhost:9999/other", "http://127.0.0.1:9999/callback", ""} {
			r := b.get(e.url + oauth.PathAuthorize + "?" + authRequest(clientID, bad, newPKCE(), "s", "").Encode())
			if r.status != http.StatusBadRequest || r.header.Get("Location") != "" || !strings.Contains(r.body, "cannot connect") {
				t.Fatalf("redirect_uri %q: HTTP %d Location %q, want 400 shown to the person", bad, r.status, r.header.Get("Location"))
			}
		}
		// Claude Code listens on any free port.
		p := newPKCE()
		loc := b.approve(authRequest(clientID, "http://localhost:41234/callback", p, "s", ""), "claude-code")
		if loc.Host != "localhost:41234" {
			t.Fatalf("redirected to %s", loc)
		}
		code := loc.Query().Get("code")
		exchange := func(redirect string) response {
			return e.postForm(oauth.PathToken, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
				"client_id": {clientID}, "code_verifier": {p.verifier}}, nil)
		}
		wantOAuthError(t, "another redirect_uri at the token endpoint", exchange("http://localhost:41235/callback"), http.StatusBadRequest, "invalid_grant")
		wantOAuthError(t, "no redirect_uri at the token endpoint", exchange(""), http.StatusBadRequest, "invalid_grant")
		wantStatus(t, "the same redirect_uri", exchange("http://localhost:41234/callback"), http.StatusOK)

		for _, bad := range [][]string{{"http://app.example/callback"}, {"myapp://callback"}, {"https://app.example/cb#frag"}, {}, {"/relative"}} {
			r := e.postJSON(oauth.PathRegister, map[string]any{"client_name": "x", "redirect_uris": bad})
			wantOAuthError(t, "registering "+strings.Join(bad, ","), r, http.StatusBadRequest, "invalid_redirect_uri")
		}
		r := b.get(e.url + oauth.PathAuthorize + "?" + authRequest("tlc_00000000000000000000000000000000", "https://app.example/cb", newPKCE(), "s", "").Encode())
		if r.status != http.StatusBadRequest || r.header.Get("Location") != "" {
			t.Fatalf("an unknown client: HTTP %d Location %q, want 400 shown to the person", r.status, r.header.Get("Location"))
		}
	})
}

// claude.ai registers asking for client_secret_post; it is registered as
// a public client and told so (RFC 7591 §3.2.1), with no secret.
func TestRegistrationIsPublic(t *testing.T) {
	e := newEnv(t, "sqlite", oauth.FetchConfig{})
	r := e.postJSON(oauth.PathRegister, map[string]any{"redirect_uris": []string{"https://claude.ai/api/mcp/auth_callback"},
		"token_endpoint_auth_method": "client_secret_post", "grant_types": []string{"authorization_code", "refresh_token"},
		"response_types": []string{"code"}, "client_name": "Claude"})
	wantStatus(t, "register", r, http.StatusCreated)
	m := r.json(t)
	if m["token_endpoint_auth_method"] != "none" || m["client_secret"] != nil || m["client_name"] != "Claude" || m["client_id_issued_at"] == nil {
		t.Fatalf("registration answer %v", m)
	}
	if r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("registration answer may be cached: %v", r.header)
	}
	wantOAuthError(t, "a client_credentials client", e.postJSON(oauth.PathRegister, map[string]any{"redirect_uris": []string{"https://a.example/cb"},
		"grant_types": []string{"client_credentials"}}), http.StatusBadRequest, "invalid_client_metadata")
	req := e.postForm(oauth.PathRegister, url.Values{"redirect_uris": {"https://a.example/cb"}}, nil)
	wantOAuthError(t, "a form instead of JSON", req, http.StatusBadRequest, "invalid_client_metadata")
	// A secret is refused at the token endpoint: none was ever issued.
	wantOAuthError(t, "a client_secret", e.postForm(oauth.PathToken, url.Values{"grant_type": {"refresh_token"}, "client_id": {m["client_id"].(string)},
		"client_secret": {"guess"}, "refresh_token": {"x"}}, nil), http.StatusUnauthorized, "invalid_client")
}

// An unknown client gets invalid_client (so Claude registers again), at
// the code exchange and at a refresh.
func TestUnknownClient(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, oauth.FetchConfig{})
		tok := e.grant(e.signedIn("alice"), "claude", "")
		stranger := tok
		stranger.clientID = "tlc_00000000000000000000000000000000"
		wantOAuthError(t, "refresh as an unknown client", e.refresh(stranger), http.StatusUnauthorized, "invalid_client")
		wantOAuthError(t, "code exchange as an unknown client", e.postForm(oauth.PathToken, url.Values{"grant_type": {"authorization_code"},
			"code": {strings.Repeat("x", 43)}, "redirect_uri": {tok.redirect}, "client_id": {stranger.clientID}, "code_verifier": {newPKCE().verifier}}, nil),
			http.StatusUnauthorized, "invalid_client")
		wantOAuthError(t, "no client_id", e.postForm(oauth.PathToken, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.refresh}}, nil),
			http.StatusUnauthorized, "invalid_client")
		// Another registered client cannot use alice's refresh token.
		other := tok
		other.clientID = e.register("Other", "https://other.example/cb")
		wantOAuthError(t, "refresh as another client", e.refresh(other), http.StatusBadRequest, "invalid_grant")
		wantStatus(t, "refresh as the client", e.refresh(tok), http.StatusOK)
		wantOAuthError(t, "an unsupported grant type", e.postForm(oauth.PathToken, url.Values{"grant_type": {"password"}, "client_id": {tok.clientID}}, nil),
			http.StatusBadRequest, "unsupported_grant_type")
	})
}

// The audience (RFC 8707): a token bound to /mcp is refused on REST, a
// token of another deployment (another issuer on the same table) is
// refused, and an API token keeps working beside OAuth.
func TestAudience(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, oauth.FetchConfig{})
		b := e.signedIn("alice")
		mcpOnly := e.grant(b, "claude", e.url+"/mcp")
		wantStatus(t, "a /mcp token on /mcp", e.mcp(e.url, mcpOnly.access), http.StatusOK)
		wantRefused(t, "a /mcp token on REST", e.api(e.url, mcpOnly.access))
		whole := e.grant(b, "claude", e.url)
		wantStatus(t, "a whole-server token on /mcp", e.mcp(e.url, whole.access), http.StatusOK)
		wantStatus(t, "a whole-server token on REST", e.api(e.url, whole.access), http.StatusOK)

		// Another deployment on the same table (say, a second stage).
		other := e.serve(e.store, "https://other.example")
		wantRefused(t, "this deployment's token at another", e.mcp(other, whole.access))
		wantRefused(t, "this deployment's token on another's REST", e.api(other, whole.access))

		// API tokens work beside OAuth.
		ctx := board.WithPrincipal(context.Background(), board.Principal{Author: "human:alice"})
		made, err := e.accounts.CreateToken(ctx, authTokenInput("claude"))
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, "an API token on /mcp", e.mcp(e.url, made.Secret), http.StatusOK)
		wantStatus(t, "an API token on REST", e.api(e.url, made.Secret), http.StatusOK)
	})
}

// Expiry: an access token an hour old is refused (the client refreshes);
// a refresh token unused for 30 days is refused, and the grant with it.
func TestExpiry(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, oauth.FetchConfig{})
		tok := e.grant(e.signedIn("alice"), "claude", "")
		e.clock.Add(time.Hour - time.Second)
		wantStatus(t, "an access token a second before its hour", e.api(e.url, tok.access), http.StatusOK)
		e.clock.Add(time.Second)
		wantRefused(t, "an access token at its hour", e.api(e.url, tok.access))
		r := e.refresh(tok)
		wantStatus(t, "refresh after the access token expired", r, http.StatusOK)
		next := tokens{access: r.json(t)["access_token"].(string), refresh: r.json(t)["refresh_token"].(string), clientID: tok.clientID}
		wantStatus(t, "the new access token", e.api(e.url, next.access), http.StatusOK)
		e.clock.Add(oauth.DefaultRefreshTTL)
		wantOAuthError(t, "a refresh token unused for 30 days", e.refresh(next), http.StatusBadRequest, "invalid_grant")
		b := e.signedIn("alice")
		if page := b.get(e.url + "/agents"); strings.Contains(page.body, "/revoke") {
			t.Fatalf("Connected agents still lists the expired grant:\n%s", page.body)
		}
	})
}

// Refresh rotation with reuse detection: the old refresh token used again
// revokes the whole family, the tokens that rotation gave included.
func TestRefreshReuse(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, oauth.FetchConfig{})
		tok := e.grant(e.signedIn("alice"), "claude", "")
		r := e.refresh(tok)
		wantStatus(t, "first refresh", r, http.StatusOK)
		next := tokens{access: r.json(t)["access_token"].(string), refresh: r.json(t)["refresh_token"].(string), clientID: tok.clientID}
		wantStatus(t, "the rotated access token", e.api(e.url, next.access), http.StatusOK)
		wantOAuthError(t, "the old refresh token again", e.refresh(tok), http.StatusBadRequest, "invalid_grant")
		wantRefused(t, "the rotated access token after the reuse", e.api(e.url, next.access))
		wantOAuthError(t, "the rotated refresh token after the reuse", e.refresh(next), http.StatusBadRequest, "invalid_grant")
		if !strings.Contains(e.logs.String(), "a refresh token was used twice") {
			t.Fatal("the reuse is not in the log")
		}
		for _, secret := range []string{tok.access, tok.refresh, next.access, next.refresh} {
			if strings.Contains(e.logs.String(), secret[len(secret)-43:]) {
				t.Fatal("a token's secret is in the log")
			}
		}
	})
}

// A disabled person's grants stop at the next call, cannot refresh, and
// the person cannot approve; enabled again, the grant works again.
func TestDisabledPerson(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, oauth.FetchConfig{})
		b := e.signedIn("alice")
		tok := e.grant(b, "claude", "")
		clientID := e.register("Another", "https://a.example/cb")
		e.setDisabled("alice", true)
		wantRefused(t, "a disabled person's agent", e.api(e.url, tok.access))
		wantRefused(t, "a disabled person's agent on MCP", e.mcp(e.url, tok.access))
		wantOAuthError(t, "a disabled person's refresh", e.refresh(tok), http.StatusBadRequest, "invalid_grant")
		r := b.get(e.url + oauth.PathAuthorize + "?" + authRequest(clientID, "https://a.example/cb", newPKCE(), "s", "").Encode())
		if r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/signin") {
			t.Fatalf("a disabled person's approval page: HTTP %d %v, want the sign-in page", r.status, r.header)
		}
		e.setDisabled("alice", false)
		wantStatus(t, "enabled again", e.api(e.url, tok.access), http.StatusOK)
	})
}

// Revocation (RFC 7009): revoking a refresh token revokes the grant; an
// unknown token is answered 200; another client's token is refused.
func TestRevocationEndpoint(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, oauth.FetchConfig{})
		b := e.signedIn("alice")
		tok := e.grant(b, "claude", "")
		other := e.grant(b, "other", "")
		wantOAuthError(t, "revoking another client's token", e.postForm(oauth.PathRevoke, url.Values{"token": {tok.refresh},
			"client_id": {other.clientID}}, nil), http.StatusBadRequest, "unauthorized_client")
		wantStatus(t, "still working", e.api(e.url, tok.access), http.StatusOK)
		r := e.postForm(oauth.PathRevoke, url.Values{"token": {tok.refresh}, "token_type_hint": {"refresh_token"}, "client_id": {tok.clientID}}, nil)
		wantStatus(t, "revoke", r, http.StatusOK)
		wantRefused(t, "the access token after revoking the refresh token", e.api(e.url, tok.access))
		wantOAuthError(t, "the revoked refresh token", e.refresh(tok), http.StatusBadRequest, "invalid_grant")
		wantStatus(t, "revoking again", e.postForm(oauth.PathRevoke, url.Values{"token": {tok.refresh}, "client_id": {tok.clientID}}, nil), http.StatusOK)
		wantStatus(t, "revoking an unknown token", e.postForm(oauth.PathRevoke, url.Values{"token": {"tla_0123456789abcdef." + strings.Repeat("a", 43)}}, nil), http.StatusOK)
		wantStatus(t, "revoking garbage", e.postForm(oauth.PathRevoke, url.Values{"token": {"garbage"}}, nil), http.StatusOK)
		wantStatus(t, "the other grant is untouched", e.api(e.url, other.access), http.StatusOK)
		// An access token revokes its grant too.
		wantStatus(t, "revoke by access token", e.postForm(oauth.PathRevoke, url.Values{"token": {other.access}}, nil), http.StatusOK)
		wantOAuthError(t, "the refresh token of a grant revoked by its access token", e.refresh(other), http.StatusBadRequest, "invalid_grant")
	})
}

// A request shaped as claude.ai sends it (as reported: it registers asking
// for client_secret_post, asks scope " offline_access" and prompt=consent):
// it goes through, and the scope it asked is recorded and echoed.
func TestClaudeShapedRequest(t *testing.T) {
	e := newEnv(t, "sqlite", oauth.FetchConfig{})
	redirect := "https://claude.ai/api/mcp/auth_callback"
	r := e.postJSON(oauth.PathRegister, map[string]any{"redirect_uris": []string{redirect}, "token_endpoint_auth_method": "client_secret_post",
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}, "client_name": "Claude"})
	wantStatus(t, "register", r, http.StatusCreated)
	clientID := r.json(t)["client_id"].(string)
	p := newPKCE()
	q := authRequest(clientID, redirect, p, "claude-state", e.url+"/mcp")
	q.Set("scope", " offline_access")
	q.Set("prompt", "consent")
	code := e.signedIn("alice").approve(q, "claude").Query().Get("code")
	tr := e.postForm(oauth.PathToken, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
		"client_id": {clientID}, "code_verifier": {p.verifier}, "resource": {e.url + "/mcp"}}, nil)
	wantStatus(t, "exchange", tr, http.StatusOK)
	if got := tr.json(t)["scope"]; got != "offline_access" {
		t.Fatalf("scope %v, want offline_access echoed", got)
	}
	if tr.json(t)["refresh_token"] == nil {
		t.Fatal("no refresh token")
	}
}
