package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
	"github.com/ticket-ledger/ticket-ledger/internal/oauth"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
	"github.com/ticket-ledger/ticket-ledger/internal/web"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// The handler tests run the board as the composition root wires it (the
// service, accounts, resolver, board and /mcp), on each store: SQLite,
// DynamoDB on minidyn (in-process), and moto (internal/testbackends).

const testPassword = "correct horse battery staple"

type env struct {
	t        *testing.T
	store    storetest.Store
	svc      *board.Service
	accounts *auth.Accounts
	clock    *testbackends.Clock
	url      string // the server
	mode     auth.Mode
	// agents serves Connected agents (OAuth) on servers started after it
	// is set, for tests that visit that page.
	agents bool
	// hooks serves the Webhooks pages (sending anywhere, loopback
	// included) on servers started after it is set.
	hooks bool
	// postsDone counts the POSTs the servers finished answering, so a
	// test can wait until every POST a browser sent has been handled.
	postsDone atomic.Int64
}

// eachStore runs fn as a subtest per store; moto under the shared policy
// (skipped with the reason, failing under make test).
func eachStore(t *testing.T, fn func(t *testing.T, backend string)) { testbackends.Each(t, fn) }

func openStore(t *testing.T, backend string) storetest.Store {
	return testbackends.Open(t, backend).Store
}

// newEnv serves the board and /mcp in mode on a fresh store. MCP in
// loopback mode runs as ai:agent.
func newEnv(t *testing.T, backend string, mode auth.Mode) *env {
	t.Helper()
	e := &env{t: t, store: openStore(t, backend), clock: testbackends.NewClock(time.Now().UTC()), mode: mode}
	e.serve(e.store)
	return e
}

// serve starts a server (another instance, when called again) on store.
func (e *env) serve(store storetest.Store) string { return e.serveMode(store, e.mode) }

// serveMode starts a server in another mode on the same store.
func (e *env) serveMode(store storetest.Store, mode auth.Mode) string {
	svc, err := board.NewService(board.Config{Store: store, BaseURL: "http://board.test", Now: e.clock.Now})
	if err != nil {
		e.t.Fatal(err)
	}
	e.svc = svc
	e.accounts = auth.NewAccounts(auth.Config{Store: store, Now: e.clock.Now})
	resolver := auth.NewResolver(auth.ResolverConfig{Mode: mode, Accounts: e.accounts,
		LocalAgent: board.Principal{Author: "ai:agent"}})
	resolver.AddBearer(e.accounts.VerifyToken)
	mux := http.NewServeMux()
	server := mcpserver.NewServer(svc, mcpserver.Options{Principal: mcpserver.ContextPrincipal()})
	mux.Handle("/mcp", resolver.RequireAPI(board.SourceMCP, mcpserver.Deny, mcpserver.Handler(server, mcpserver.HandlerOptions{})))
	ts := httptest.NewServer(nil)
	ts.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			defer e.postsDone.Add(1)
		}
		mux.ServeHTTP(w, r)
	})
	cfg := web.Config{Service: svc, Accounts: e.accounts, Resolver: resolver, BaseURL: ts.URL}
	if e.agents {
		cfg.OAuth = oauth.New(oauth.Config{Store: store, Accounts: e.accounts, Issuer: ts.URL, Now: e.clock.Now})
	}
	if ws, ok := store.(webhook.Store); ok && e.hooks {
		cfg.Webhooks = webhook.New(webhook.Config{Store: ws, Secrets: store, Workspaces: store, BaseURL: ts.URL, AllowPrivate: true})
	}
	mux.Handle("/", web.New(cfg))
	e.t.Cleanup(ts.Close)
	if e.url == "" {
		e.url = ts.URL
	}
	return ts.URL
}

// addPerson puts a person with testPassword into the store.
func (e *env) addPerson(handle string, role board.Role) {
	e.t.Helper()
	pw := testPassword
	ctx := board.WithPrincipal(context.Background(), auth.Operator)
	if _, err := e.accounts.AddPerson(ctx, auth.AddPersonInput{Handle: handle, Role: role, Password: &pw}); err != nil {
		e.t.Fatal(err)
	}
}

// browser is an HTTP client with cookies that does not follow redirects
// and sends Sec-Fetch-Site like a browser on a same-origin form.
type browser struct {
	e      *env
	client *http.Client
	base   string
}

func (e *env) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{e: e, base: e.url, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

type response struct {
	status int
	header http.Header
	body   string
}

func (b *browser) do(req *http.Request) response {
	b.e.t.Helper()
	resp, err := b.client.Do(req)
	if err != nil {
		b.e.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: string(body)}
}

func (b *browser) get(path string) response {
	b.e.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.base+path, nil)
	return b.do(req)
}

// post submits a form from this site's own page.
func (b *browser) post(path string, form url.Values) response {
	b.e.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, b.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("Origin", b.base)
	return b.do(req)
}

// signIn signs in through the form and checks it worked.
func (b *browser) signIn(handle, password string) {
	b.e.t.Helper()
	r := b.post("/signin", url.Values{"handle": {handle}, "password": {password}})
	if r.status != http.StatusSeeOther {
		b.e.t.Fatalf("sign-in as %s: %d %s", handle, r.status, r.body)
	}
}

// confirm is the field a confirmation page adds to a destructive form.
var confirm = url.Values{"confirm": {"yes"}}

var requestIDField = regexp.MustCompile(`name="request_id" value="([^"]+)"`)

// formRequestID is the request_id of the first form on a page whose action
// matches action.
func formRequestID(t *testing.T, page, action string) string {
	t.Helper()
	i := strings.Index(page, `action="`+action+`"`)
	if i < 0 {
		t.Fatalf("no form with action %s on the page", action)
	}
	m := requestIDField.FindStringSubmatch(page[i:])
	if m == nil {
		t.Fatalf("the form %s carries no request_id", action)
	}
	return m[1]
}

// ticketCount is how many tickets a workspace holds, from the store.
func (e *env) ticketCount(slug string) int {
	e.t.Helper()
	w, err := e.store.GetWorkspace(context.Background(), slug)
	if err != nil {
		e.t.Fatal(err)
	}
	n := 0
	for _, c := range w.Counts {
		n += c
	}
	return n
}
