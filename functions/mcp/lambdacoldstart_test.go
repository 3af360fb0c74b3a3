package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	miniserver "github.com/truora/minidyn/server"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
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
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_REGION", "us-east-1")
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
