package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	ledgerauth "github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
	miniserver "github.com/truora/minidyn/server"
)

// A team server: required mode, reached as https://board.example.com
// through a proxy on 127.0.0.1.
const teamPublic = "https://board.example.com"

func teamHandler(t *testing.T) (http.Handler, storetest.Store) {
	t.Helper()
	cfg := config{Auth: ledgerauth.ModeRequired, BaseURL: teamPublic, BaseURLSet: true, Retention: 24 * time.Hour, Store: storeSQLite,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
	store := e2eStore(t, "sqlite")
	h, err := newHandler(cfg, store, slog.New(slog.DiscardHandler), mcpserver.HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return h, store
}

// teamRequest is a request from peer (host:port) with the given Host and
// headers (name, value pairs).
func teamRequest(method, path, host, peer, body string, headers ...string) *http.Request {
	r := httptest.NewRequest(method, "http://"+host+path, strings.NewReader(body))
	r.Host, r.RemoteAddr = host, peer
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	return r
}

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec
}

// The team server answers only to its public name, directly or as a
// trusted proxy forwarded it; a name forwarded by anyone else is not
// believed. Forms and API writes from the public origin pass the origin
// checks; from another origin they are refused.
func TestTeamHostAndOriginChecks(t *testing.T) {
	h, store := teamHandler(t)
	const direct, proxy = "198.51.100.7:5000", "127.0.0.1:41000"
	for _, c := range []struct {
		name       string
		host, peer string
		headers    []string
		want       int
	}{
		{"the public name", "board.example.com", direct, nil, http.StatusOK},
		{"the public name with its default port", "board.example.com:443", direct, nil, http.StatusOK},
		{"another name", "evil.example", direct, nil, http.StatusMisdirectedRequest},
		{"the listener's own address", "127.0.0.1:8080", direct, nil, http.StatusMisdirectedRequest},
		{"forwarded by the trusted proxy", "127.0.0.1:8080", proxy, []string{"X-Forwarded-Host", "board.example.com"}, http.StatusOK},
		{"Forwarded by the trusted proxy", "127.0.0.1:8080", proxy, []string{"Forwarded", "for=203.0.113.9;host=board.example.com"}, http.StatusOK},
		{"a foreign name forwarded by the trusted proxy", "board.example.com", proxy, []string{"X-Forwarded-Host", "evil.example"}, http.StatusMisdirectedRequest},
		{"forwarded by an untrusted peer", "127.0.0.1:8080", direct, []string{"X-Forwarded-Host", "board.example.com"}, http.StatusMisdirectedRequest},
	} {
		if rec := serve(h, teamRequest(http.MethodGet, "/signin", c.host, c.peer, "", c.headers...)); rec.Code != c.want {
			t.Errorf("%s: /signin answered %d, want %d\n%s", c.name, rec.Code, c.want, rec.Body.String())
		}
	}
	signIn := url.Values{"handle": {"nobody"}, "password": {"not the password"}}.Encode()
	for _, c := range []struct {
		name, method, path, body, contentType string
		refused                               int
	}{
		{"sign-in form", http.MethodPost, "/signin", signIn, "application/x-www-form-urlencoded", http.StatusForbidden},
		{"REST write", http.MethodPost, "/api/v1/workspaces", `{"slug":"x","name":"X"}`, "application/json", http.StatusForbidden},
	} {
		for _, origin := range []string{"https://evil.example", "https://board.example.com.evil.example"} {
			rec := serve(h, teamRequest(c.method, c.path, "board.example.com", direct, c.body, "Origin", origin, "Content-Type", c.contentType))
			if rec.Code != c.refused {
				t.Errorf("%s from %s: %d, want %d", c.name, origin, rec.Code, c.refused)
			}
		}
		// From the public origin the request gets past the origin check
		// to the credential it lacks (401), through the proxy too.
		for _, peer := range []struct {
			addr, host string
			headers    []string
		}{{direct, "board.example.com", nil}, {proxy, "127.0.0.1:8080", []string{"X-Forwarded-Host", "board.example.com", "X-Forwarded-For", "203.0.113.9"}}} {
			headers := append([]string{"Origin", teamPublic, "Content-Type", c.contentType}, peer.headers...)
			rec := serve(h, teamRequest(c.method, c.path, peer.host, peer.addr, c.body, headers...))
			if rec.Code != http.StatusUnauthorized {
				t.Errorf("%s from the public origin via %s: %d, want 401 (past the origin check)\n%s", c.name, peer.addr, rec.Code, rec.Body.String())
			}
		}
	}
	// /mcp, with an agent's token: its own Origin check, against the
	// public origin too.
	op := board.WithPrincipal(t.Context(), ledgerauth.Operator)
	accounts := ledgerauth.NewAccounts(ledgerauth.Config{Store: store})
	if _, err := accounts.AddPerson(op, ledgerauth.AddPersonInput{Handle: "alice"}); err != nil {
		t.Fatal(err)
	}
	made, err := accounts.CreateToken(op, ledgerauth.CreateTokenInput{Handle: "alice", Agent: "claude"})
	if err != nil {
		t.Fatal(err)
	}
	for origin, want := range map[string]int{teamPublic: http.StatusOK, "https://evil.example": http.StatusForbidden, "http://evil.example": http.StatusForbidden} {
		rec := serve(h, teamRequest(http.MethodPost, "/mcp", "board.example.com", direct, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			"Content-Type", "application/json", "Accept", "application/json, text/event-stream", "Authorization", "Bearer "+made.Secret, "Origin", origin))
		if rec.Code != want {
			t.Errorf("/mcp from %s with a token: %d, want %d\n%s", origin, rec.Code, want, rec.Body.String())
		}
	}
}

// /healthz answered 421 to any Host but the public name, so a load
// balancer, Caddy's active health check or a systemd or Kubernetes probe,
// which call the instance by its address, saw a healthy server as down.
// It answers on any Host now (it reveals nothing); every other path, and
// /healthz with any other method, keeps the 421.
func TestTeamHealthzAnswersOnAnyHost(t *testing.T) {
	h, _ := teamHandler(t)
	const direct = "198.51.100.7:5000"
	for _, host := range []string{"board.example.com", "127.0.0.1:8080", "10.0.0.7:8080", "[::1]:8080", "evil.example", ""} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			rec := serve(h, teamRequest(method, "/healthz", host, direct, ""))
			if rec.Code != http.StatusOK || (method == http.MethodGet && !strings.Contains(rec.Body.String(), `"status":"ok"`)) {
				t.Errorf("%s /healthz with Host %q: %d %s, want 200 ok", method, host, rec.Code, rec.Body.String())
			}
		}
		if host == "board.example.com" {
			continue
		}
		for _, c := range []struct{ method, path string }{
			{http.MethodPost, "/healthz"}, {http.MethodGet, "/healthz/"}, {http.MethodGet, "/healthz/x"}, {http.MethodGet, "/signin"},
			{http.MethodGet, "/"}, {http.MethodGet, "/.well-known/oauth-authorization-server"}, {http.MethodGet, "/api/v1/workspaces"},
			{http.MethodPost, "/oauth/register"},
		} {
			if rec := serve(h, teamRequest(c.method, c.path, host, direct, "")); rec.Code != http.StatusMisdirectedRequest {
				t.Errorf("%s %s with Host %q: %d, want 421", c.method, c.path, host, rec.Code)
			}
		}
	}
}

// OAuth discovery names the public URL, whichever way the request came:
// the issuer and every endpoint come from LEDGER_BASE_URL, never from a
// header a client or proxy sent.
func TestTeamOAuthDiscoveryNamesPublicURL(t *testing.T) {
	h, _ := teamHandler(t)
	for _, via := range []struct {
		name, host, peer string
		headers          []string
	}{
		{"direct", "board.example.com", "198.51.100.7:5000", nil},
		{"through the proxy", "127.0.0.1:8080", "127.0.0.1:41000", []string{"X-Forwarded-Host", "board.example.com", "X-Forwarded-Proto", "http"}},
	} {
		get := func(path string) map[string]any {
			t.Helper()
			rec := serve(h, teamRequest(http.MethodGet, path, via.host, via.peer, "", via.headers...))
			var doc map[string]any
			if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &doc) != nil {
				t.Fatalf("%s: GET %s answered %d: %s", via.name, path, rec.Code, rec.Body.String())
			}
			return doc
		}
		as := get("/.well-known/oauth-authorization-server")
		if as["issuer"] != teamPublic {
			t.Errorf("%s: issuer %v, want %s", via.name, as["issuer"], teamPublic)
		}
		for _, k := range []string{"authorization_endpoint", "token_endpoint", "registration_endpoint", "revocation_endpoint"} {
			if v, _ := as[k].(string); !strings.HasPrefix(v, teamPublic+"/") {
				t.Errorf("%s: %s = %v, want it under %s", via.name, k, as[k], teamPublic)
			}
		}
		for path, resource := range map[string]string{"/.well-known/oauth-protected-resource": teamPublic, "/.well-known/oauth-protected-resource/mcp": teamPublic + "/mcp"} {
			pr := get(path)
			if pr["resource"] != resource || fmt.Sprint(pr["authorization_servers"]) != "["+teamPublic+"]" {
				t.Errorf("%s: %s = resource %v, servers %v; want %s, [%s]", via.name, path, pr["resource"], pr["authorization_servers"], resource, teamPublic)
			}
		}
		rec := serve(h, teamRequest(http.MethodPost, "/mcp", via.host, via.peer, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			append([]string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}, via.headers...)...))
		if want := `resource_metadata="` + teamPublic + `/.well-known/oauth-protected-resource/mcp"`; rec.Code != http.StatusUnauthorized ||
			!strings.Contains(rec.Header().Get("WWW-Authenticate"), want) {
			t.Errorf("%s: /mcp without a credential: %d %q, want 401 naming %s", via.name, rec.Code, rec.Header().Get("WWW-Authenticate"), want)
		}
	}
}

// Per-client limits count the address the edge decided. A client that
// talks to the server directly cannot pick a new address per request by
// sending X-Forwarded-For: OAuth registration (10 per address per window)
// refuses its 11th attempt whatever it claims. Behind the trusted proxy
// each forwarded client has its own allowance, and one forwarded client
// still has only one.
func TestProxySpoofedForwardedForIsIgnoredForRateLimits(t *testing.T) {
	register := func(h http.Handler, peer, forwardedFor string) int {
		r := teamRequest(http.MethodPost, "/oauth/register", "board.example.com", peer, `{}`,
			"Content-Type", "application/json", "X-Forwarded-For", forwardedFor)
		return serve(h, r).Code
	}
	h, _ := teamHandler(t)
	for i := range 10 {
		if code := register(h, "198.51.100.7:5000", fmt.Sprintf("203.0.113.%d", i+1)); code == http.StatusTooManyRequests {
			t.Fatalf("attempt %d from the direct client: 429 before its allowance was used", i+1)
		}
	}
	if code := register(h, "198.51.100.7:5000", "203.0.113.200"); code != http.StatusTooManyRequests {
		t.Fatalf("11th attempt from one direct client with a new X-Forwarded-For: %d, want 429 (the header is not believed)", code)
	}

	h, _ = teamHandler(t)
	for i := range 25 {
		if code := register(h, "127.0.0.1:41000", fmt.Sprintf("203.0.113.%d", i+1)); code == http.StatusTooManyRequests {
			t.Fatalf("client %d through the trusted proxy: 429; each forwarded client should count alone", i+1)
		}
	}
	for i := range 10 {
		if code := register(h, "127.0.0.1:41000", "192.0.2.50, 198.51.100.99"); code == http.StatusTooManyRequests {
			t.Fatalf("attempt %d of one forwarded client: 429 before its allowance was used", i+1)
		}
	}
	// The left entry is the client's own claim; the right-most untrusted
	// one (198.51.100.99) is who the proxy saw, and it has used its 10.
	if code := register(h, "127.0.0.1:41000", "192.0.2.51, 198.51.100.99"); code != http.StatusTooManyRequests {
		t.Fatalf("11th attempt of one forwarded client with a new claimed origin: %d, want 429", code)
	}
}

// The session cookie is Secure and __Host- behind https (and on loopback,
// which browsers count as secure); on a plain-HTTP public URL off loopback,
// allowed on purpose, a browser would drop such a cookie, so it is a
// host-only cookie without Secure, and it signs the person in.
func TestTeamSessionCookieFollowsTheScheme(t *testing.T) {
	for _, c := range []struct {
		base, name string
		secure     bool
	}{
		{teamPublic, ledgerauth.SessionCookie, true},
		{"http://127.0.0.1:8080", ledgerauth.SessionCookie, true},
		{"http://board.lan:8080", ledgerauth.PlainSessionCookie, false},
	} {
		t.Run(c.base, func(t *testing.T) {
			store := e2eStore(t, "sqlite")
			cfg := config{Auth: ledgerauth.ModeRequired, BaseURL: c.base, BaseURLSet: true, AllowPlainHTTP: true, Retention: 24 * time.Hour, Store: storeSQLite}
			h, err := newHandler(cfg, store, slog.New(slog.DiscardHandler), mcpserver.HandlerOptions{})
			if err != nil {
				t.Fatal(err)
			}
			pw := e2ePassword
			if _, err := ledgerauth.NewAccounts(ledgerauth.Config{Store: store}).AddPerson(board.WithPrincipal(t.Context(), ledgerauth.Operator),
				ledgerauth.AddPersonInput{Handle: "alice", Password: &pw}); err != nil {
				t.Fatal(err)
			}
			host := strings.TrimPrefix(strings.TrimPrefix(c.base, "https://"), "http://")
			rec := serve(h, teamRequest(http.MethodPost, "/signin", host, "198.51.100.7:5000", url.Values{"handle": {"alice"}, "password": {pw}}.Encode(),
				"Content-Type", "application/x-www-form-urlencoded", "Origin", c.base))
			cookies := rec.Result().Cookies()
			if rec.Code != http.StatusSeeOther || len(cookies) != 1 || cookies[0].Name != c.name || cookies[0].Secure != c.secure ||
				!cookies[0].HttpOnly || cookies[0].Domain != "" {
				t.Fatalf("sign-in: %d, cookies %v; want 303 and one host-only HttpOnly %s (Secure %v)", rec.Code, cookies, c.name, c.secure)
			}
			r := teamRequest(http.MethodGet, "/", host, "198.51.100.7:5000", "")
			r.AddCookie(cookies[0])
			if rec := serve(h, r); rec.Code != http.StatusOK {
				t.Fatalf("the board with the session cookie: %d, want 200", rec.Code)
			}
		})
	}
}

// A proxy on the same machine sends the public name to a loopback
// listener. The go-sdk's own DNS-rebinding check refuses exactly that (a
// non-loopback Host on a loopback connection) with 403; on a team server
// the public-host check stands in for it, and /mcp answers.
func TestTeamMCPAnswersThePublicNameOnALoopbackListener(t *testing.T) {
	h, store := teamHandler(t)
	srv := httptest.NewServer(h) // listens on 127.0.0.1
	t.Cleanup(srv.Close)
	op := board.WithPrincipal(t.Context(), ledgerauth.Operator)
	accounts := ledgerauth.NewAccounts(ledgerauth.Config{Store: store})
	if _, err := accounts.AddPerson(op, ledgerauth.AddPersonInput{Handle: "alice"}); err != nil {
		t.Fatal(err)
	}
	made, err := accounts.CreateToken(op, ledgerauth.CreateTokenInput{Handle: "alice", Agent: "claude"})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "board.example.com"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+made.Secret)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/mcp as board.example.com on a loopback listener: %s, want 200", resp.Status)
	}
}

// Loopback mode believes no proxy, whatever LEDGER_TRUSTED_PROXIES says: a
// DNS-rebinding page runs in a browser on the loopback address itself and
// may send X-Forwarded-Host, which would otherwise carry it past the
// loopback Host check.
func TestProxyNotBelievedInLoopbackMode(t *testing.T) {
	cfg := config{Auth: ledgerauth.ModeLoopback, Author: "ai:agent", BaseURL: "http://127.0.0.1:8080", Retention: 24 * time.Hour, Store: storeSQLite,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}
	h, err := newHandler(cfg, e2eStore(t, "sqlite"), slog.New(slog.DiscardHandler), mcpserver.HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, header := range []string{"X-Forwarded-Host", "Forwarded"} {
		value := "127.0.0.1:8080"
		if header == "Forwarded" {
			value = "host=127.0.0.1:8080"
		}
		rec := serve(h, teamRequest(http.MethodGet, "/api/v1/workspaces", "evil.example:8080", "127.0.0.1:50000", "", header, value))
		if rec.Code != http.StatusMisdirectedRequest {
			t.Errorf("loopback mode, Host evil.example with %s from 127.0.0.1: %d, want 421", header, rec.Code)
		}
	}
}

// What a team server adds leaves Lambda as it was: with a custom domain in
// LEDGER_BASE_URL the API's own name is still served (no public-host check
// there) and the OAuth documents name the custom domain; without it they
// name the API's own URL from the event. API Gateway's X-Forwarded-For is
// not believed (no trusted proxy): OAuth registration still counts the
// event's source address, however the header varies.
func TestTeamLambdaKeepsItsPublicURL(t *testing.T) {
	mini := httptest.NewServer(miniserver.NewServer())
	t.Cleanup(mini.Close)
	testbackends.FakeAWSCredentials(t)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	ctx := context.Background()
	client, err := dynamo.NewClient(ctx, dynamo.ClientConfig{Endpoint: mini.URL})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct{ baseURL, issuer string }{
		{"https://board.example.com", "https://board.example.com"},
		{"", "https://" + lamDomain},
	} {
		table := fmt.Sprintf("team-lambda-%d", i)
		if err := dynamo.CreateTable(ctx, client, table); err != nil {
			t.Fatal(err)
		}
		fn, err := newLambdaFunction(ctx, lambdaGetenv(mapEnv(map[string]string{envTable: table, envEndpoint: mini.URL, envBaseURL: c.baseURL})),
			slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		invoke := lamInvoke(fn.Handle)
		r := lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, http.MethodGet, "/.well-known/oauth-authorization-server", nil, nil))
		var doc struct {
			Issuer string `json:"issuer"`
		}
		if r.HTTP.StatusCode != http.StatusOK || json.Unmarshal([]byte(r.HTTP.Body), &doc) != nil || doc.Issuer != c.issuer {
			t.Fatalf("LEDGER_BASE_URL=%q, reached as %s: HTTP %d %q; want 200 naming %s", c.baseURL, lamDomain, r.HTTP.StatusCode, r.HTTP.Body, c.issuer)
		}
		for n := range 11 {
			ev := lambdatest.HTTPEvent(lamDomain, http.MethodPost, "/oauth/register",
				map[string]string{"Content-Type": "application/json", "X-Forwarded-For": fmt.Sprintf("203.0.113.%d", n+1)}, []byte(`{}`))
			r := lamSend(t, invoke, ev)
			if limited := r.HTTP.StatusCode == http.StatusTooManyRequests; limited != (n == 10) {
				t.Fatalf("registration %d from one source address with a new X-Forwarded-For: HTTP %d; want 429 only for the 11th", n+1, r.HTTP.StatusCode)
			}
		}
	}
}
