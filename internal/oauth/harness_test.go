package oauth_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
	"github.com/ticket-ledger/ticket-ledger/internal/oauth"
	"github.com/ticket-ledger/ticket-ledger/internal/rest"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
	"github.com/ticket-ledger/ticket-ledger/internal/web"
)

// The tests run the authorization server as the composition root wires it
// in required mode (the resolver with API tokens and OAuth, /mcp, REST,
// the board with its approval page, the OAuth endpoints), over real HTTP,
// on each store: SQLite, DynamoDB on minidyn, and moto when
// scripts/with-moto.sh names one (LEDGER_TEST_DYNAMODB_ENDPOINT).

const testPassword = "correct horse battery staple"

type env struct {
	t        *testing.T
	store    storetest.Store
	clock    *testbackends.Clock
	accounts *auth.Accounts
	url      string // the first server: the issuer of every server of the env
	docs     oauth.FetchConfig
	logs     *syncBuffer
}

// eachStore runs fn on every backend; moto under the shared policy
// (skipped with the reason, failing under make test).
func eachStore(t *testing.T, fn func(t *testing.T, backend string)) { testbackends.Each(t, fn) }

func openStore(t *testing.T, backend string) storetest.Store {
	return testbackends.Open(t, backend).Store
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}
func (b *syncBuffer) String() string { b.mu.Lock(); defer b.mu.Unlock(); return b.buf.String() }

// newEnv serves one instance on a fresh store, with alice (a member) and
// bob, and the document fetch settings docs.
func newEnv(t *testing.T, backend string, docs oauth.FetchConfig) *env {
	t.Helper()
	e := &env{t: t, store: openStore(t, backend), clock: testbackends.NewClock(time.Now().UTC()), docs: docs, logs: &syncBuffer{}}
	e.url = e.serve(e.store, "")
	e.addPerson("alice")
	e.addPerson("bob")
	return e
}

// serve starts an instance on store whose issuer is issuer ("": its own
// URL), and returns its URL.
func (e *env) serve(store storetest.Store, issuer string) string {
	e.t.Helper()
	ts := httptest.NewServer(nil)
	e.t.Cleanup(ts.Close)
	if issuer == "" {
		issuer = ts.URL
	}
	log := slog.New(slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	svc, err := board.NewService(board.Config{Store: store, BaseURL: issuer, Now: e.clock.Now, Logger: log})
	if err != nil {
		e.t.Fatal(err)
	}
	accounts := auth.NewAccounts(auth.Config{Store: store, Now: e.clock.Now, Logger: log})
	if e.accounts == nil {
		e.accounts = accounts
	}
	as := oauth.New(oauth.Config{Store: store, Accounts: accounts, Issuer: issuer, Documents: e.docs, Now: e.clock.Now, Logger: log})
	resolver := auth.NewResolver(auth.ResolverConfig{Mode: auth.ModeRequired, Accounts: accounts, ResourceMetadata: as.ResourceMetadataURL})
	resolver.AddBearer(accounts.VerifyToken)
	resolver.AddBearer(as.VerifyAccessToken)
	mux := http.NewServeMux()
	server := mcpserver.NewServer(svc, mcpserver.Options{Principal: mcpserver.ContextPrincipal(), Logger: log})
	mux.Handle("/mcp", resolver.RequireAPI(board.SourceMCP, mcpserver.Deny, mcpserver.Handler(server, mcpserver.HandlerOptions{})))
	mux.Handle(rest.Prefix+"/", rest.New(rest.Config{Service: svc, Resolver: resolver}))
	as.Register(mux)
	mux.Handle("/", web.New(web.Config{Service: svc, Accounts: accounts, Resolver: resolver, BaseURL: issuer, OAuth: as, Logger: log}))
	ts.Config.Handler = mux
	return ts.URL
}

func (e *env) addPerson(handle string) {
	e.t.Helper()
	pw := testPassword
	ctx := board.WithPrincipal(context.Background(), auth.Operator)
	if _, err := e.accounts.AddPerson(ctx, auth.AddPersonInput{Handle: handle, Password: &pw}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) setDisabled(handle string, disabled bool) {
	e.t.Helper()
	ctx := board.WithPrincipal(context.Background(), auth.Operator)
	if err := e.accounts.SetDisabled(ctx, handle, disabled); err != nil {
		e.t.Fatal(err)
	}
}

type response struct {
	status int
	header http.Header
	body   string
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.body), &m); err != nil {
		t.Fatalf("answer is not a JSON object: %v: HTTP %d %q", err, r.status, r.body)
	}
	return m
}

func (r response) location(t *testing.T) *url.URL {
	t.Helper()
	u, err := url.Parse(r.header.Get("Location"))
	if err != nil || r.header.Get("Location") == "" {
		t.Fatalf("no Location: HTTP %d %v %q", r.status, r.header, r.body)
	}
	return u
}

// do sends a request without following redirects.
func do(t *testing.T, client *http.Client, req *http.Request) response {
	t.Helper()
	if client == nil {
		client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

func (e *env) get(path string, header map[string]string) response {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.url+path, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return do(e.t, nil, req)
}

func (e *env) postForm(path string, form url.Values, header map[string]string) response {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.url+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return do(e.t, nil, req)
}

func (e *env) postJSON(path string, body any) response {
	e.t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, e.url+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	return do(e.t, nil, req)
}

// register registers a public client and returns its client_id.
func (e *env) register(name string, redirects ...string) string {
	e.t.Helper()
	r := e.postJSON(oauth.PathRegister, map[string]any{"client_name": name, "redirect_uris": redirects,
		"grant_types": []string{"authorization_code", "refresh_token"}, "token_endpoint_auth_method": "none"})
	if r.status != http.StatusCreated {
		e.t.Fatalf("register: HTTP %d %s", r.status, r.body)
	}
	return r.json(e.t)["client_id"].(string)
}

// browser is a person's browser: cookies, no redirects followed.
type browser struct {
	e      *env
	client *http.Client
}

func (e *env) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{e: e, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// signedIn is a browser signed in as handle.
func (e *env) signedIn(handle string) *browser {
	e.t.Helper()
	b := e.browser()
	r := b.post(e.url+"/signin", url.Values{"handle": {handle}, "password": {testPassword}, "next": {"/"}})
	if r.status != http.StatusSeeOther {
		e.t.Fatalf("sign in as %s: HTTP %d %q", handle, r.status, r.body)
	}
	return b
}

func (b *browser) get(u string) response {
	b.e.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	return do(b.e.t, b.client, req)
}

func (b *browser) post(u string, form url.Values) response {
	b.e.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return do(b.e.t, b.client, req)
}

var hiddenField = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// formFields reads the hidden fields of the approval page.
func formFields(page string) url.Values {
	out := url.Values{}
	for _, m := range hiddenField.FindAllStringSubmatch(page, -1) {
		out.Add(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	return out
}

// pkce is a code verifier and its S256 challenge.
type pkce struct{ verifier, challenge string }

func newPKCE() pkce {
	b := make([]byte, 32)
	rand.Read(b)
	v := base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(v))
	return pkce{verifier: v, challenge: base64.RawURLEncoding.EncodeToString(sum[:])}
}

// authRequest is an authorization request's parameters.
func authRequest(clientID, redirect string, p pkce, state, resource string) url.Values {
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect},
		"code_challenge": {p.challenge}, "code_challenge_method": {"S256"}, "state": {state}}
	if resource != "" {
		q.Set("resource", resource)
	}
	return q
}

// approve plays the person: opens the approval page, names the agent and
// allows; it returns the redirect the browser is sent to.
func (b *browser) approve(q url.Values, agent string) *url.URL {
	b.e.t.Helper()
	page := b.get(b.e.url + oauth.PathAuthorize + "?" + q.Encode())
	if page.status != http.StatusOK {
		b.e.t.Fatalf("approval page: HTTP %d %v %q", page.status, page.header, page.body)
	}
	form := formFields(page.body)
	form.Set("agent_name", agent)
	form.Set("decision", "allow")
	r := b.post(b.e.url+oauth.PathAuthorize, form)
	if r.status != http.StatusSeeOther {
		b.e.t.Fatalf("allow: HTTP %d %q", r.status, r.body)
	}
	return r.location(b.e.t)
}

// grant runs the whole code flow for a registered client as alice's agent
// and returns the token answer.
type tokens struct{ access, refresh, clientID, redirect string }

func (e *env) grant(b *browser, agent, resource string) tokens {
	e.t.Helper()
	redirect := "http://127.0.0.1:53682/callback"
	clientID := e.register("Test Client", redirect)
	p := newPKCE()
	loc := b.approve(authRequest(clientID, redirect, p, "st-1", resource), agent)
	code := loc.Query().Get("code")
	r := e.postForm(oauth.PathToken, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
		"client_id": {clientID}, "code_verifier": {p.verifier}}, nil)
	if r.status != http.StatusOK {
		e.t.Fatalf("code exchange: HTTP %d %q", r.status, r.body)
	}
	m := r.json(e.t)
	return tokens{access: m["access_token"].(string), refresh: m["refresh_token"].(string), clientID: clientID, redirect: redirect}
}

func (e *env) refresh(tok tokens) response {
	e.t.Helper()
	return e.postForm(oauth.PathToken, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.refresh}, "client_id": {tok.clientID}}, nil)
}

// api calls GET /api/v1/workspaces on server base with a bearer token.
func (e *env) api(base, token string) response {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/api/v1/workspaces", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	return do(e.t, nil, req)
}

// mcp sends one MCP request (tools/list on 2025-11-25) to server base.
func (e *env) mcp(base, token string) response {
	e.t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return do(e.t, nil, req)
}

// createTicket creates a ticket over REST with a bearer token.
func (e *env) createTicket(token, key, title string) response {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.url+"/api/v1/workspaces/inbox/tickets", strings.NewReader(`{"title":`+strconv.Quote(title)+`}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	return do(e.t, nil, req)
}

func wantStatus(t *testing.T, what string, r response, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("%s: HTTP %d %v %q, want %d", what, r.status, r.header, r.body, status)
	}
}

// wantOAuthError checks an error answer of the token endpoint.
func wantOAuthError(t *testing.T, what string, r response, status int, code string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("%s: HTTP %d %q, want %d %s", what, r.status, r.body, status, code)
	}
	if got := r.json(t)["error"]; got != code {
		t.Fatalf("%s: error %v (%q), want %s", what, got, r.body, code)
	}
	if r.header.Get("Cache-Control") != "no-store" || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Fatalf("%s: headers %v, want JSON and Cache-Control: no-store", what, r.header)
	}
}

// wantRefused checks that a bearer token is refused with a 401 whose
// challenge says invalid_token and names the resource metadata.
func wantRefused(t *testing.T, what string, r response) {
	t.Helper()
	c := r.header.Get("WWW-Authenticate")
	if r.status != http.StatusUnauthorized || !strings.Contains(c, `error="invalid_token"`) || !strings.Contains(c, `resource_metadata="`) {
		t.Fatalf("%s: HTTP %d, WWW-Authenticate %q, %q; want 401 invalid_token with resource_metadata", what, r.status, c, r.body)
	}
}

func authTokenInput(agent string) auth.CreateTokenInput { return auth.CreateTokenInput{Agent: agent} }
