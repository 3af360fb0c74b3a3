package rest_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
	"github.com/ticket-ledger/ticket-ledger/internal/rest"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
	"github.com/ticket-ledger/ticket-ledger/internal/tasks"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// The REST tests run the API as the composition root wires it (service,
// accounts, the one resolver with API tokens, /api/v1 and /mcp), in
// required mode, on each store: SQLite, DynamoDB on minidyn, and moto when
// scripts/with-moto.sh names it (make test). Every request a test sends
// and every answer it gets is validated against the served OpenAPI
// document with kin-openapi. That document is built from the same Go types
// as the answers, so it follows a renamed field: TestOpenAPISnapshot and
// TestWireFieldNames pin the wire format itself.

// eachStore runs fn as a subtest per backend; moto under the shared policy
// (skipped with the reason, failing under make test).
func eachStore(t *testing.T, fn func(t *testing.T, backend string)) { testbackends.Each(t, fn) }

// backend is one store with a witness that reads it outside the service.
type backend struct {
	name  string
	store storetest.Store
	open  func(t *testing.T) storetest.Store // another instance on the same data
	// rows returns every row (SQLite) or item (DynamoDB) of a kind, each
	// as the text of all its columns or attributes.
	rows func(t *testing.T, kind string) []string
}

func openBackend(t *testing.T, name string) *backend {
	t.Helper()
	tb := testbackends.Open(t, name)
	b := &backend{name: name, store: tb.Store, open: func(t *testing.T) storetest.Store { return tb.Reopen(t) }}
	if name == testbackends.SQLite {
		b.rows = func(t *testing.T, kind string) []string {
			return sqlRows(t, tb.SQLitePath, map[string]string{"tokens": "api_tokens"}[kind])
		}
	} else {
		b.rows = func(t *testing.T, kind string) []string {
			return scanItems(t, tb.Endpoint, tb.Table, map[string]string{"tokens": "api_token"}[kind])
		}
	}
	return b
}

func sqlRows(t *testing.T, path, table string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT * FROM " + table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var parts []string
		for i, v := range vals {
			parts = append(parts, cols[i]+"="+v.String)
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

func scanItems(t *testing.T, endpoint, table, typ string) []string {
	t.Helper()
	ctx := context.Background()
	client, err := dynamo.NewClient(ctx, dynamo.ClientConfig{Endpoint: endpoint})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	p := dynamodb.NewScanPaginator(client, &dynamodb.ScanInput{TableName: &table, ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range page.Items {
			if v, ok := item["type"].(*types.AttributeValueMemberS); !ok || v.Value != typ {
				continue
			}
			var parts []string
			for k, v := range item {
				switch x := v.(type) {
				case *types.AttributeValueMemberS:
					parts = append(parts, k+"="+x.Value)
				case *types.AttributeValueMemberN:
					parts = append(parts, k+"="+x.Value)
				case *types.AttributeValueMemberB:
					parts = append(parts, k+"="+string(x.Value))
				default:
					parts = append(parts, fmt.Sprintf("%s=%v", k, x))
				}
			}
			out = append(out, strings.Join(parts, " "))
		}
	}
	return out
}

// env is one server (or several instances) on one backend.
type env struct {
	t        *testing.T
	b        *backend
	svc      *board.Service
	accounts *auth.Accounts
	clock    *testbackends.Clock
	url      string
	logs     *syncBuffer // everything the server logged
	oapi     *openAPI
	opts     envOptions
	// runners are the local task runners of the instances (with
	// envOptions.runner), in the order they were started.
	runners []*tasks.Local
	// hookKeys numbers the Idempotency-Keys of webhook creations.
	hookKeys int

	// tokens by name: alice (admin, herself), claude (ai:claude for
	// alice), bob (member, himself), botbob (ai:claude for bob).
	tokens map[string]string
}

type envOptions struct {
	mode auth.Mode
	wrap func(storetest.Store) storetest.Store // e.g. a store that fails on purpose
	// runner: imports larger than inlineRows (0: the default) go to the
	// local task runner, as under make run; without it every import runs
	// to its end inside the request.
	runner     bool
	inlineRows int
	// pollInterval is what tasks suggest as polling interval (0: the
	// default); tests that follow a task poll at it.
	pollInterval time.Duration
	// hooks, if set, builds the webhooks service the API serves.
	hooks func(store board.Store) *webhook.Service
}

func newEnv(t *testing.T, backendName string, opts ...envOptions) *env {
	t.Helper()
	var o envOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.mode == "" {
		o.mode = auth.ModeRequired
	}
	e := &env{t: t, b: openBackend(t, backendName), clock: testbackends.NewClock(time.Now().UTC()), logs: &syncBuffer{}, tokens: map[string]string{}, opts: o}
	store := e.b.store
	if o.wrap != nil {
		store = o.wrap(store)
	}
	e.url = e.serve(store, o.mode)
	e.accounts = auth.NewAccounts(auth.Config{Store: e.b.store, Now: e.clock.Now})
	op := board.WithPrincipal(context.Background(), auth.Operator)
	for _, p := range []struct {
		handle string
		role   board.Role
	}{{"alice", board.RoleAdmin}, {"bob", board.RoleMember}} {
		if _, err := e.accounts.AddPerson(op, auth.AddPersonInput{Handle: p.handle, Role: p.role, InvitationSecret: auth.NewSecret()}); err != nil {
			t.Fatal(err)
		}
	}
	for name, in := range map[string]auth.CreateTokenInput{
		"alice": {Handle: "alice", Label: "alice's script"}, "claude": {Handle: "alice", Agent: "claude", Label: "Claude Code"},
		"bob": {Handle: "bob"}, "botbob": {Handle: "bob", Agent: "claude"},
	} {
		made, err := e.accounts.CreateToken(op, in)
		if err != nil {
			t.Fatal(err)
		}
		e.tokens[name] = made.Secret
	}
	e.oapi = loadOpenAPI(t, e.url)
	return e
}

// serve starts a server (another instance, when called again) on store,
// logging at debug into e.logs, and returns its URL.
func (e *env) serve(store storetest.Store, mode auth.Mode) string {
	e.t.Helper()
	log := slog.New(slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	svc, err := board.NewService(board.Config{Store: store, BaseURL: "http://board.test", Now: e.clock.Now, Logger: log,
		InlineImportRows: e.opts.inlineRows, TaskPollInterval: e.opts.pollInterval})
	if err != nil {
		e.t.Fatal(err)
	}
	if e.opts.runner {
		runner := tasks.NewLocal(svc, log)
		svc.SetRunner(runner)
		e.runners = append(e.runners, runner)
		e.t.Cleanup(runner.Close)
	}
	if e.svc == nil {
		e.svc = svc
	}
	accounts := auth.NewAccounts(auth.Config{Store: store, Now: e.clock.Now, Logger: log})
	resolver := auth.NewResolver(auth.ResolverConfig{Mode: mode, Accounts: accounts, LocalAgent: board.Principal{Author: "ai:local"}})
	resolver.AddBearer(accounts.VerifyToken)
	mux := http.NewServeMux()
	server := mcpserver.NewServer(svc, mcpserver.Options{Principal: mcpserver.ContextPrincipal(), Logger: log})
	mux.Handle("/mcp", resolver.RequireAPI(board.SourceMCP, mcpserver.Deny, mcpserver.Handler(server, mcpserver.HandlerOptions{})))
	var hooks *webhook.Service
	if e.opts.hooks != nil {
		hooks = e.opts.hooks(store)
	}
	mux.Handle(rest.Prefix+"/", rest.New(rest.Config{Service: svc, Resolver: resolver, Webhooks: hooks}))
	ts := httptest.NewServer(logRequests(log, mux))
	e.t.Cleanup(ts.Close)
	return ts.URL
}

// logRequests logs every request with all its headers at debug, as the
// most talkative operator might: a token must still not reach the log.
func logRequests(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.Debug("request", "method", r.Method, "path", r.URL.Path, "authorization_present", r.Header.Get("Authorization") != "")
		next.ServeHTTP(w, r)
	})
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

// openAPI validates requests and answers against the served document.
type openAPI struct {
	base                *url.URL // the server the document's router knows
	router              routers.Router
	requests, responses atomic.Int64 // validated
}

func loadOpenAPI(t *testing.T, base string) *openAPI {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("GET /api/v1/openapi.json: %d %s", resp.StatusCode, raw)
	}
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatalf("loading the served OpenAPI document: %v", err)
	}
	if doc.OpenAPIMajorMinor() != "3.1" {
		t.Fatalf("the document is OpenAPI %s, want 3.1", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the served OpenAPI document is not valid: %v", err)
	}
	// The document names its server relatively (/api/v1); the router
	// needs this test server's absolute URL.
	doc.Servers = openapi3.Servers{{URL: base + rest.Prefix}}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(base)
	return &openAPI{router: router, base: u}
}

// answer is a response with its body read.
type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) problem(t *testing.T) rest.Problem {
	t.Helper()
	var p rest.Problem
	if err := json.Unmarshal(a.body, &p); err != nil || a.header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("answer %d %s is not a problem (%v)", a.status, a.body, err)
	}
	if p.Status != a.status {
		t.Fatalf("problem status %d in an answer of %d", p.Status, a.status)
	}
	return p
}

func decodeAs[T any](t *testing.T, a answer) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(a.body, &v); err != nil {
		t.Fatalf("decoding %s: %v", a.body, err)
	}
	return v
}

// call is one request of a test.
type call struct {
	method, path string
	token        string            // a bearer token; "" for none
	key          string            // Idempotency-Key; "" for none
	body         any               // marshalled to JSON unless a string or []byte
	header       map[string]string // more headers
	// malformed: the request breaks the document on purpose (a missing
	// key, an unknown field): the document must refuse it too. Its answer
	// is still validated.
	malformed bool
	base      string // another instance; "" for e.url
}

// do sends c, validates the request and the answer against the document,
// and returns the answer.
func (e *env) do(c call) answer {
	e.t.Helper()
	var body []byte
	switch b := c.body.(type) {
	case nil:
	case string:
		body = []byte(b)
	case []byte:
		body = b
	default:
		body, _ = json.Marshal(b)
	}
	base := c.base
	if base == "" {
		base = e.url
	}
	req, err := http.NewRequest(c.method, base+c.path, bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.key != "" {
		req.Header.Set("Idempotency-Key", c.key)
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, header: resp.Header, body: raw}
	e.validate(c, req, body, a)
	return a
}

// validate checks one exchange against the document: the request (unless
// it is malformed on purpose, when the document must refuse it too) and
// the answer, whose status must be one the operation documents.
func (e *env) validate(c call, req *http.Request, body []byte, a answer) {
	e.t.Helper()
	reqErr, respErr, found := e.oapi.check(req, body, a)
	if !found {
		if a.status == http.StatusNotFound || a.status == http.StatusMethodNotAllowed {
			return // an unknown route or method: not an operation of the document
		}
		e.t.Fatalf("%s %s: not an operation of the OpenAPI document: %v", c.method, c.path, reqErr)
	}
	switch {
	case c.malformed && reqErr == nil:
		e.t.Errorf("%s %s: the request is malformed on purpose, but the OpenAPI document accepts it", c.method, c.path)
	case !c.malformed && reqErr != nil:
		e.t.Errorf("%s %s: the request does not match the OpenAPI document: %v", c.method, c.path, reqErr)
	}
	if respErr != nil {
		e.t.Errorf("%s %s: the answer %d %s does not match the OpenAPI document: %v", c.method, c.path, a.status, a.body, respErr)
	}
}

// check validates a request and its answer; found is false when the
// request names no operation of the document.
func (o *openAPI) check(req *http.Request, body []byte, a answer) (reqErr, respErr error, found bool) {
	ctx := context.Background()
	req = req.Clone(ctx)
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.URL.Scheme, req.URL.Host = o.base.Scheme, o.base.Host // another instance serves the same document
	route, params, err := o.router.FindRoute(req)
	if err != nil {
		return err, nil, false
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}}
	if reqErr = openapi3filter.ValidateRequest(ctx, in); reqErr == nil {
		o.requests.Add(1)
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: a.status, Header: a.header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}}
	out.SetBodyBytes(a.body)
	if respErr = openapi3filter.ValidateResponse(ctx, out); respErr == nil {
		o.responses.Add(1)
	}
	return reqErr, respErr, true
}

// ok sends c and fails the test unless the answer has status.
func (e *env) ok(c call, status int) answer {
	e.t.Helper()
	a := e.do(c)
	if a.status != status {
		e.t.Fatalf("%s %s: %d %s, want %d", c.method, c.path, a.status, a.body, status)
	}
	return a
}

// refused sends c and checks it is a problem with status and code.
func (e *env) refused(c call, status int, code string) rest.Problem {
	e.t.Helper()
	a := e.do(c)
	if a.status != status {
		e.t.Fatalf("%s %s: %d %s, want %d %s", c.method, c.path, a.status, a.body, status, code)
	}
	p := a.problem(e.t)
	if p.Code != code {
		e.t.Fatalf("%s %s: code %q (%s), want %q", c.method, c.path, p.Code, p.Detail, code)
	}
	return p
}

// createTicket makes a ticket through the API and returns it.
func (e *env) createTicket(token, workspace, key string, fields map[string]any) board.Ticket {
	e.t.Helper()
	a := e.ok(call{method: "POST", path: "/api/v1/workspaces/" + workspace + "/tickets", token: token, key: key, body: fields}, http.StatusCreated)
	return decodeAs[board.TicketResult](e.t, a).Ticket
}

// ticketCount is how many tickets a workspace holds, from the store.
func (e *env) ticketCount(slug string) int {
	e.t.Helper()
	w, err := e.b.store.GetWorkspace(context.Background(), slug)
	if err != nil {
		e.t.Fatal(err)
	}
	n := 0
	for _, c := range w.Counts {
		n += c
	}
	return n
}
