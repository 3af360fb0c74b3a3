package main

import (
	"bytes"
	"context"
	"encoding/json"
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

	"github.com/aws/aws-lambda-go/events"
	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
	"github.com/ticket-ledger/ticket-ledger/internal/openingstore"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
	miniserver "github.com/truora/minidyn/server"
)

// coldLambda is a Lambda function in this process on minidyn, whose
// requests are seen on their way in: the credential reads are counted, and
// the seeding read (the BatchGetItem of the default workspaces the store's
// open makes) can be held.
type coldLambda struct {
	fn     *lambdaFunction
	cookie string

	mu               sync.Mutex
	sessions, people int
	personRead       chan struct{} // closed at the first person read
	seedGate         chan struct{} // the seeding read waits for it (when set)
	counting         atomic.Bool   // the function's requests are observed
}

func newColdLambda(t *testing.T, holdSeed bool) *coldLambda {
	t.Helper()
	c := &coldLambda{personRead: make(chan struct{})}
	minidyn := testbackends.WithCRC32(miniserver.NewServer())
	mini := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		c.observe(r.Header.Get("X-Amz-Target"), body)
		minidyn.ServeHTTP(w, r)
	}))
	t.Cleanup(mini.Close)
	testbackends.FakeAWSCredentials(t)
	ctx := context.Background()
	client, err := dynamo.NewClient(ctx, dynamo.ClientConfig{Endpoint: mini.URL})
	if err != nil {
		t.Fatal(err)
	}
	const table = "cold"
	st, err := dynamo.Open(ctx, dynamo.Config{Client: client, Table: table, CreateTable: true})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if err := st.CreatePerson(ctx, board.Person{Handle: "cold", Name: "cold", Role: board.RoleMember, CreatedAt: now}, nil); err != nil {
		t.Fatal(err)
	}
	secret := auth.NewSecret()
	if err := st.CreateSession(ctx, board.Session{IDHash: auth.HashSecret(secret), Handle: "cold", CreatedAt: now, ExpiresAt: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	c.cookie = auth.SessionCookie + "=" + secret
	if holdSeed {
		c.seedGate = make(chan struct{})
		t.Cleanup(func() { close(c.seedGate) })
	}
	c.counting.Store(true) // from here on, only the function's requests
	env := map[string]string{envTable: table, envEndpoint: mini.URL}
	c.fn, err = newLambdaFunction(ctx, lambdaGetenv(mapEnv(env)), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// observe sees one DynamoDB request (operation and JSON body).
func (c *coldLambda) observe(target string, body []byte) {
	if !c.counting.Load() {
		return
	}
	switch op := target[strings.LastIndexByte(target, '.')+1:]; {
	case op == "GetItem" && strings.Contains(string(body), `"SES#`):
		c.mu.Lock()
		c.sessions++
		c.mu.Unlock()
	case op == "GetItem" && strings.Contains(string(body), `"PEOPLE"`):
		c.mu.Lock()
		if c.people++; c.people == 1 {
			close(c.personRead)
		}
		c.mu.Unlock()
	case op == "BatchGetItem" && c.seedGate != nil:
		<-c.seedGate
	}
}

func (c *coldLambda) reads() (sessions, people int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessions, c.people
}

func (c *coldLambda) invoke(t *testing.T, ev events.APIGatewayV2HTTPRequest) lamReply {
	t.Helper()
	return lamSend(t, lamInvoke(c.fn.Handle), ev)
}

// lamToolsCall is a tools/call event without a credential (tests add one).
func lamToolsCall(name string) events.APIGatewayV2HTTPRequest {
	return lamRPCEvent(lamLegacy, 7, "tools/call", map[string]any{"name": name, "arguments": map[string]any{}})
}

// The first signed-in call on a cold instance reads its credential once
// (the session, then its person), and builds the MCP server, whether API
// Gateway passes the cookie in the event's cookies (as it does) or as a
// header.
func TestLambdaFirstCallReadsTheCredentialOnce(t *testing.T) {
	for _, where := range []string{"cookies", "header"} {
		t.Run(where, func(t *testing.T) {
			c := newColdLambda(t, false)
			ev := lamToolsCall("list_workspaces")
			if where == "cookies" {
				ev.Cookies = []string{c.cookie}
			} else {
				ev.Headers["cookie"] = c.cookie
			}
			r := c.invoke(t, ev)
			if r.HTTP.StatusCode != http.StatusOK || r.Error != nil || !strings.Contains(string(r.Result), `"inbox"`) {
				t.Fatalf("list_workspaces: HTTP %d %s", r.HTTP.StatusCode, r.HTTP.Body)
			}
			if s, p := c.reads(); s != 1 || p != 1 {
				t.Fatalf("%d session and %d person reads for one call, want one of each", s, p)
			}
			if !c.fn.app.mcpBuilt.Load() {
				t.Error("a signed-in call did not build the MCP server")
			}
		})
	}
}

// A request without a credential is refused without the store and without
// building the MCP server; a signed-in one builds it.
func TestLambdaRefusalBuildsNothing(t *testing.T) {
	c := newColdLambda(t, true) // the store's open never finishes here
	r := c.invoke(t, lamToolsCall("list_workspaces"))
	if r.HTTP.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(lamHeader(r.HTTP, "WWW-Authenticate"), "Bearer") {
		t.Fatalf("no credential: HTTP %d %v %s, want 401 with a Bearer challenge", r.HTTP.StatusCode, r.HTTP.Headers, r.HTTP.Body)
	}
	if c.fn.app.mcpBuilt.Load() {
		t.Error("a refused request built the MCP server")
	}
	// A bad session is refused too, read from the store whose open (the
	// seeding read) is still held: the credential check does not wait
	// for it.
	ev := lamToolsCall("list_workspaces")
	ev.Cookies = []string{auth.SessionCookie + "=" + auth.NewSecret()}
	r = c.invoke(t, ev)
	if r.HTTP.StatusCode != http.StatusUnauthorized {
		t.Fatalf("unknown session while the store opens: HTTP %d %s, want 401", r.HTTP.StatusCode, r.HTTP.Body)
	}
	if s, _ := c.reads(); s != 1 {
		t.Fatalf("%d session reads, want 1", s)
	}
}

// The credential check of a signed-in call goes out while the store's open
// is still seeding; the tool, which needs the workspaces, waits for the
// open and then answers.
func TestLambdaCredentialBeforeTheSeed(t *testing.T) {
	c := newColdLambda(t, true)
	ev := lamToolsCall("list_workspaces")
	ev.Cookies = []string{c.cookie}
	done := make(chan lamReply, 1)
	go func() { done <- c.invoke(t, ev) }()
	select {
	case <-c.personRead: // session and person read, with the seeding read held
	case <-time.After(10 * time.Second):
		t.Fatal("the credential was not read while the store's open was seeding")
	}
	select {
	case r := <-done:
		t.Fatalf("answered before the store was open: HTTP %d %s", r.HTTP.StatusCode, r.HTTP.Body)
	default:
	}
	c.seedGate <- struct{}{} // let the seeding read through
	r := <-done
	if r.HTTP.StatusCode != http.StatusOK || r.Error != nil || !strings.Contains(string(r.Result), `"inbox"`) {
		t.Fatalf("list_workspaces: HTTP %d %s", r.HTTP.StatusCode, r.HTTP.Body)
	}
	if !c.fn.app.mcpBuilt.Load() {
		t.Error("a signed-in call did not build the MCP server")
	}
}

// A Lambda instance whose cold-start open failed (the table was not there)
// says so on /healthz and in its tool errors, without internals, and opens
// the store on a later call once it can: one failed open no longer breaks
// the instance for its life while /healthz answers ok.
func TestLambdaRecoversAfterAFailedOpen(t *testing.T) {
	mini := testbackends.StartMinidyn(t, nil)
	testbackends.FakeAWSCredentials(t)
	const table = "created-later"
	env := map[string]string{envTable: table, envEndpoint: mini.URL}
	fn, err := newLambdaFunction(context.Background(), lambdaGetenv(mapEnv(env)), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	invoke := lamInvoke(fn.Handle)
	healthz := func() (int, map[string]string, string) {
		t.Helper()
		r := lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, http.MethodGet, "/healthz", nil, nil))
		var body map[string]string
		if err := json.Unmarshal([]byte(r.HTTP.Body), &body); err != nil || !strings.HasPrefix(lamHeader(r.HTTP, "Content-Type"), "application/json") {
			t.Fatalf("GET /healthz = %d %q, want JSON", r.HTTP.StatusCode, r.HTTP.Body)
		}
		return r.HTTP.StatusCode, body, r.HTTP.Body
	}

	status, body, raw := healthz()
	if status != http.StatusServiceUnavailable || body["store"] != "unavailable" || !strings.HasPrefix(body["error_id"], "err-") {
		t.Fatalf("GET /healthz with no table = %d %s, want 503 with the store unavailable and an error id", status, raw)
	}
	// An MCP call's credential cannot be checked without the store: 503,
	// a JSON-RPC error, no internals.
	lamCookie = auth.SessionCookie + "=" + auth.NewSecret()
	t.Cleanup(func() { lamCookie = "" })
	r := lamSend(t, invoke, lamRPCEvent(lamLegacy, 7, "tools/call", map[string]any{"name": "list_workspaces", "arguments": map[string]any{}}))
	text := r.HTTP.Body
	if r.HTTP.StatusCode != http.StatusServiceUnavailable || r.Error == nil {
		t.Fatalf("list_workspaces with no table: HTTP %d %q, want 503 with a JSON-RPC error", r.HTTP.StatusCode, text)
	}
	for _, leak := range []string{raw, text} {
		if strings.Contains(leak, "ResourceNotFound") || strings.Contains(leak, table) || strings.Contains(leak, "dynamo") {
			t.Errorf("answer %q shows internals", leak)
		}
	}

	// The table appears (an operator deployed it); the instance was not restarted.
	client, err := dynamo.NewClient(context.Background(), dynamo.ClientConfig{Endpoint: mini.URL})
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamo.CreateTable(context.Background(), client, table); err != nil {
		t.Fatal(err)
	}
	lamAddPerson(t, context.Background(), mini.URL, table)
	deadline := time.Now().Add(2 * openingstore.MaxBackoff)
	for {
		lamCookie = ""
		r := lamSend(t, invoke, lamForm("/signin", url.Values{"handle": {lamHandle}, "password": {lamPassword}}))
		if c := lamSessionCookie(r.HTTP); r.HTTP.StatusCode == http.StatusSeeOther && c != "" {
			lamCookie = c
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the store was never opened again: sign-in HTTP %d %s", r.HTTP.StatusCode, r.HTTP.Body)
		}
		time.Sleep(50 * time.Millisecond) // polling for the backoff to pass
	}
	if ws := lamOK[board.WorkspacesResult](t, invoke, lamLegacy, "list_workspaces", map[string]any{}); len(ws.Workspaces) != 3 {
		t.Fatalf("workspaces once open, as a person: %+v", ws)
	}
	for {
		status, _, raw := healthz()
		if status == http.StatusOK && raw == `{"status":"ok","store":"ok"}` {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET /healthz once open = %d %s", status, raw)
		}
		time.Sleep(50 * time.Millisecond) // polling past the health answer's cache
	}
}
