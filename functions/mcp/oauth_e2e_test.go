package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	ledgerauth "github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
	"github.com/ticket-ledger/ticket-ledger/internal/oauth"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// OAuth end to end with the go-sdk's own OAuth client
// (auth.NewAuthorizationCodeHandler) against the real composition root in
// required mode, on SQLite, DynamoDB on minidyn, and moto under
// scripts/with-moto.sh: discovery from the 401, registration (dynamic, and
// a client ID metadata document), PKCE, the code exchange, tool calls as
// ai:<name> for the person, a refresh (the namespace stays: a retry
// replays), and revocation (on the board, seen by another instance; and by
// the client through RFC 7009). A fetcher plays the browser: it signs the
// person in and approves.

const e2ePassword = "correct horse battery staple"

// e2eServers serves two instances of one deployment (one issuer) on store
// in required mode, with alice as a person, and returns their URLs.
func e2eServers(t *testing.T, store storetest.Store, docs oauth.FetchConfig) (string, string) {
	t.Helper()
	first, second := httptest.NewServer(nil), httptest.NewServer(nil)
	t.Cleanup(first.Close)
	t.Cleanup(second.Close)
	cfg := config{Auth: ledgerauth.ModeRequired, BaseURL: first.URL, Retention: 24 * time.Hour, Store: storeSQLite, documents: docs}
	for _, ts := range []*httptest.Server{first, second} {
		h, err := newHandler(cfg, store, slog.New(slog.DiscardHandler), mcpserver.HandlerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ts.Config.Handler = h
	}
	pw := e2ePassword
	accounts := ledgerauth.NewAccounts(ledgerauth.Config{Store: store})
	if _, err := accounts.AddPerson(board.WithPrincipal(context.Background(), ledgerauth.Operator),
		ledgerauth.AddPersonInput{Handle: "alice", Password: &pw}); err != nil {
		t.Fatal(err)
	}
	return first.URL, second.URL
}

// recorder logs every request the OAuth client and the MCP transport make:
// "METHOD path status".
type recorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.lines = append(r.lines, fmt.Sprintf("%s %s error", req.Method, req.URL.Path))
	} else {
		r.lines = append(r.lines, fmt.Sprintf("%s %s %d", req.Method, req.URL.Path, resp.StatusCode))
	}
	return resp, err
}

func (r *recorder) log() []string { r.mu.Lock(); defer r.mu.Unlock(); return slices.Clone(r.lines) }

// wantInOrder checks that want appear in got in this order.
func wantInOrder(t *testing.T, got, want []string) {
	t.Helper()
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	if i < len(want) {
		t.Fatalf("requests:\n  %s\nwant, in this order:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// person is the browser the fetcher drives: it signs alice in when the
// board asks and approves, naming the agent (or keeping the suggested name
// when agent is "").
type person struct {
	t         *testing.T
	client    *http.Client
	agent     string
	approvals atomic.Int32
	refuse    atomic.Bool // from now on, the person does not approve
}

func newPerson(t *testing.T, agent string) *person {
	jar, _ := cookiejar.New(nil)
	return &person{t: t, agent: agent, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

var e2eHidden = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)
var e2eAgent = regexp.MustCompile(`name="agent_name"[^>]* value="([^"]*)"`)

func (p *person) do(method, u string, form url.Values) (*http.Response, string, error) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, u, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b), nil
}

// fetch is the AuthorizationCodeFetcher: the browser opens the URL, signs
// in if sent to the sign-in page, approves, and reads the redirect back to
// the client (which it does not follow: nothing listens there).
func (p *person) fetch(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	if p.refuse.Load() {
		return nil, errors.New("the person does not approve this app again")
	}
	start, _ := url.Parse(args.URL)
	resp, page, err := p.do(http.MethodGet, args.URL, nil)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusSeeOther && strings.HasPrefix(resp.Header.Get("Location"), "/signin") {
		next, _ := url.Parse(resp.Header.Get("Location"))
		form := url.Values{"handle": {"alice"}, "password": {e2ePassword}, "next": {next.Query().Get("next")}}
		resp, _, err = p.do(http.MethodPost, start.Scheme+"://"+start.Host+"/signin", form)
		if err != nil || resp.StatusCode != http.StatusSeeOther {
			return nil, fmt.Errorf("sign-in: %v %v", resp.StatusCode, err)
		}
		if resp, page, err = p.do(http.MethodGet, start.Scheme+"://"+start.Host+resp.Header.Get("Location"), nil); err != nil {
			return nil, err
		}
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the approval page answered HTTP %d: %s", resp.StatusCode, page)
	}
	form := url.Values{}
	for _, m := range e2eHidden.FindAllStringSubmatch(page, -1) {
		form.Add(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	agent := p.agent
	if agent == "" {
		if m := e2eAgent.FindStringSubmatch(page); m != nil {
			agent = html.UnescapeString(m[1])
		}
	}
	form.Set("agent_name", agent)
	form.Set("decision", "allow")
	resp, body, err := p.do(http.MethodPost, start.Scheme+"://"+start.Host+start.Path, form)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusSeeOther {
		return nil, fmt.Errorf("approving answered HTTP %d: %s", resp.StatusCode, body)
	}
	back, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		return nil, err
	}
	p.approvals.Add(1)
	q := back.Query()
	return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
}

// forcer is the client's token source, made by the SDK after the code
// exchange; expire makes the client refresh before its next request, as
// it would an hour later.
type forcer struct {
	mu  sync.Mutex
	ctx context.Context
	cfg *oauth2.Config
	ts  oauth2.TokenSource
}

func (f *forcer) make(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ctx, f.cfg, f.ts = ctx, cfg, cfg.TokenSource(ctx, tok)
	return f, nil
}

func (f *forcer) Token() (*oauth2.Token, error) {
	f.mu.Lock()
	ts := f.ts
	f.mu.Unlock()
	return ts.Token()
}

func (f *forcer) expire(t *testing.T) {
	t.Helper()
	tok, err := f.Token()
	if err != nil {
		t.Fatal(err)
	}
	stale := *tok
	stale.Expiry = time.Now().Add(-time.Minute)
	f.mu.Lock()
	f.ts = f.cfg.TokenSource(f.ctx, &stale)
	f.mu.Unlock()
}

func e2eConnect(t *testing.T, endpoint string, h auth.OAuthHandler, rec *recorder, version string) (*mcp.ClientSession, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "oauth-e2e", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: endpoint + "/mcp", HTTPClient: &http.Client{Transport: rec}, OAuthHandler: h, MaxRetries: -1, DisableStandaloneSSE: true,
	}, opts)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func e2eCall[T any](t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (T, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out T
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return out, err
	}
	b, _ := json.Marshal(res.StructuredContent)
	if res.IsError {
		var text []string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text = append(text, tc.Text)
			}
		}
		return out, fmt.Errorf("tool error: %s", strings.Join(text, " "))
	}
	return out, json.Unmarshal(b, &out)
}

// e2eStore is a fresh store on backend (internal/testbackends: moto is
// skipped with the reason, or fails under make test).
func e2eStore(t *testing.T, backend string) storetest.Store {
	return testbackends.Open(t, backend).Store
}

func eachE2EStore(t *testing.T, fn func(t *testing.T, store storetest.Store)) {
	testbackends.Each(t, func(t *testing.T, backend string) { fn(t, e2eStore(t, backend)) })
}

// Dynamic client registration, the way Claude Code and claude.ai connect.
func TestOAuthEndToEndDynamicRegistration(t *testing.T) {
	eachE2EStore(t, func(t *testing.T, store storetest.Store) {
		first, second := e2eServers(t, store, oauth.FetchConfig{})
		rec := &recorder{}
		alice := newPerson(t, "claude")
		tokens := &forcer{}
		h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
			DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
				ClientName: "Claude", RedirectURIs: []string{"http://localhost:53682/callback"},
				GrantTypes: []string{"authorization_code", "refresh_token"}, TokenEndpointAuthMethod: "none"}},
			AuthorizationCodeFetcher: alice.fetch, Client: &http.Client{Transport: rec}, NewTokenSource: tokens.make,
			RequestRefreshToken: true,
		})
		if err != nil {
			t.Fatal(err)
		}
		cs, err := e2eConnect(t, first, h, rec, "")
		if err != nil {
			t.Fatalf("connect with OAuth: %v", err)
		}
		// Discovery from the 401, registration, the code exchange, the retry.
		wantInOrder(t, rec.log(), []string{"POST /mcp 401", "GET /.well-known/oauth-protected-resource/mcp 200",
			"GET /.well-known/oauth-authorization-server 200", "POST /oauth/register 201", "POST /oauth/token 200", "POST /mcp 200"})
		if alice.approvals.Load() != 1 {
			t.Fatalf("%d approvals, want 1", alice.approvals.Load())
		}

		args := map[string]any{"request_id": "oauth-e2e-1", "workspace": "inbox", "title": "Filed through a connector"}
		res, err := e2eCall[board.TicketResult](t, cs, "create_ticket", args)
		if err != nil || res.Replayed || res.Ticket.CreatedBy != "ai:claude" {
			t.Fatalf("create_ticket: %+v %v, want a new ticket by ai:claude", res, err)
		}
		detail, err := e2eCall[board.TicketDetail](t, cs, "get_ticket", map[string]any{"id": res.Ticket.ID})
		if err != nil || len(detail.History) == 0 || detail.History[0].Author != "ai:claude" || detail.History[0].OnBehalfOf != "human:alice" {
			t.Fatalf("get_ticket history: %+v %v, want ai:claude for human:alice", detail.History, err)
		}
		if _, err := e2eCall[board.TicketResult](t, cs, "create_ticket", map[string]any{"request_id": "oauth-e2e-2", "workspace": "reference",
			"title": "x"}); err == nil || !strings.Contains(err.Error(), "read-only for AI") {
			t.Fatalf("a write to a read-only workspace: %v, want the AI policy's refusal", err)
		}

		// The client refreshes (as it would after an hour): a new token, the
		// same principal, so the retry of the first write replays.
		before := strings.Count(strings.Join(rec.log(), "\n"), "POST /oauth/token 200")
		tokens.expire(t)
		again, err := e2eCall[board.TicketResult](t, cs, "create_ticket", args)
		if err != nil || !again.Replayed || again.Ticket.ID != res.Ticket.ID {
			t.Fatalf("the retry after the refresh: %+v %v, want the replay of %s", again, err, res.Ticket.ID)
		}
		if after := strings.Count(strings.Join(rec.log(), "\n"), "POST /oauth/token 200"); after != before+1 {
			t.Fatalf("token requests %d → %d, want one refresh", before, after)
		}

		// The other instance takes the same token, on the 2026-07-28 revision too.
		cs2, err := e2eConnect(t, second, h, rec, "2026-07-28")
		if err != nil {
			t.Fatalf("connect to the second instance: %v", err)
		}
		if _, err := e2eCall[board.WorkspacesResult](t, cs2, "list_workspaces", nil); err != nil {
			t.Fatalf("list_workspaces on the second instance: %v", err)
		}

		// Revoked on the board of the first instance: the next call on the
		// second is refused, and the client is sent back to authorization,
		// which the person no longer gives.
		revokeOnBoard(t, alice, first, "Claude")
		alice.refuse.Store(true)
		if _, err := e2eCall[board.WorkspacesResult](t, cs2, "list_workspaces", nil); err == nil {
			t.Fatal("a call after the revocation succeeded")
		}
		if n := strings.Count(strings.Join(rec.log(), "\n"), "POST /mcp 401"); n < 2 {
			t.Fatalf("the call after the revocation was not answered 401 (%d 401s in all)", n)
		}
	})
}

// revokeOnBoard disconnects the app named client on Connected agents.
func revokeOnBoard(t *testing.T, p *person, base, client string) {
	t.Helper()
	_, page, err := p.do(http.MethodGet, base+"/agents", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page, client) {
		t.Fatalf("Connected agents does not list %s:\n%s", client, page)
	}
	m := regexp.MustCompile(`action="(/agents/[0-9a-f]{16}/revoke)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no revoke form:\n%s", page)
	}
	resp, _, err := p.do(http.MethodPost, base+m[1], url.Values{})
	if err != nil || resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoke on the board: %v %v", resp, err)
	}
}

// A client ID metadata document: the client's id is an https URL the
// server fetches (a test server on loopback with a test CA, the only
// loopback address the fetch may reach); the person keeps the agent name
// the page suggests. The client revokes its own grant (RFC 7009).
func TestOAuthEndToEndMetadataDocument(t *testing.T) {
	eachE2EStore(t, func(t *testing.T, store storetest.Store) {
		var docURL string
		var fetches atomic.Int32
		docs := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fetches.Add(1)
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"client_id": docURL, "client_name": "Claude Code",
				"redirect_uris": []string{"http://localhost/callback", "http://127.0.0.1/callback"},
				"grant_types":   []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
				"token_endpoint_auth_method": "none"})
		}))
		t.Cleanup(docs.Close)
		docURL = docs.URL + "/oauth/claude-code-client-metadata"
		pool := x509.NewCertPool()
		pool.AddCert(docs.Certificate())
		docAddr := netip.MustParseAddrPort(docs.Listener.Addr().String())
		first, _ := e2eServers(t, store, oauth.FetchConfig{TLS: &tls.Config{RootCAs: pool},
			Permit: func(ap netip.AddrPort) bool { return ap == docAddr }})

		rec := &recorder{}
		alice := newPerson(t, "") // keeps the suggested name
		tokens := &forcer{}
		h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
			ClientIDMetadataDocumentConfig: &auth.ClientIDMetadataDocumentConfig{URL: docURL},
			RedirectURL:                    "http://localhost:53999/callback",
			AuthorizationCodeFetcher:       alice.fetch, Client: &http.Client{Transport: rec}, NewTokenSource: tokens.make,
		})
		if err != nil {
			t.Fatal(err)
		}
		cs, err := e2eConnect(t, first, h, rec, "")
		if err != nil {
			t.Fatalf("connect with OAuth: %v", err)
		}
		log := rec.log()
		wantInOrder(t, log, []string{"POST /mcp 401", "GET /.well-known/oauth-protected-resource/mcp 200",
			"GET /.well-known/oauth-authorization-server 200", "POST /oauth/token 200", "POST /mcp 200"})
		if slices.ContainsFunc(log, func(l string) bool { return strings.HasPrefix(l, "POST /oauth/register") }) {
			t.Fatalf("the client registered although it has a metadata document: %v", log)
		}
		if fetches.Load() != 1 {
			t.Fatalf("the document was fetched %d times, want 1", fetches.Load())
		}
		res, err := e2eCall[board.TicketResult](t, cs, "create_ticket", map[string]any{"request_id": "cimd-1", "workspace": "inbox", "title": "From Claude Code"})
		if err != nil || res.Ticket.CreatedBy != "ai:claude-code" {
			t.Fatalf("create_ticket: %+v %v, want by ai:claude-code (the suggested name)", res, err)
		}
		tokens.expire(t)
		if _, err := e2eCall[board.WorkspacesResult](t, cs, "list_workspaces", nil); err != nil {
			t.Fatalf("a call after the refresh: %v", err)
		}

		// The client revokes its refresh token: the whole grant stops.
		tok, err := tokens.Token()
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.PostForm(first+"/oauth/revoke", url.Values{"token": {tok.RefreshToken}, "token_type_hint": {"refresh_token"},
			"client_id": {docURL}})
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("revoke: %v %v", resp, err)
		}
		resp.Body.Close()
		alice.refuse.Store(true)
		if _, err := e2eCall[board.WorkspacesResult](t, cs, "list_workspaces", nil); err == nil {
			t.Fatal("a call after the client revoked its grant succeeded")
		}
	})
}
