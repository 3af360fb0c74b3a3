package mcpserver_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

const (
	legacyVersion = "2025-11-25" // initialize handshake
	modernVersion = "2026-07-28" // server/discover, per-request _meta
)

var agent = board.Principal{Author: "ai:tester", Source: board.SourceMCP}

// env is one server on a fresh store, reachable over real HTTP.
type env struct {
	URL   string
	Store board.Store // reads the state directly, outside the MCP path
	Svc   *board.Service
	// Witness counts tickets, notes, events and request records in the
	// backend itself (SQL, or a DynamoDB scan), whatever the service says.
	Witness func(t *testing.T) map[string]int
}

type envOptions struct {
	principal board.Principal
	wrap      func(board.Store) board.Store // e.g. a gate around commits
	runner    board.TaskRunner              // nil: imports run to the end inside the call
	// wrapHandler wraps the HTTP handler (e.g. a gate where a request
	// reaches the server); nil: none.
	wrapHandler func(http.Handler) http.Handler
	// backend names a store of internal/testbackends; "" is SQLite, for
	// what does not depend on the store (the catalogue, the snapshots, the
	// JSON-RPC envelope). Whatever reads or writes tickets runs on every
	// backend through onEachStore.
	backend string
}

// onEachStore runs fn as one subtest per backend (testbackends.Each:
// SQLite, DynamoDB on minidyn, and moto when scripts/with-moto.sh names
// it; without it the moto subtest is skipped with the reason, or fails
// under LEDGER_TEST_REQUIRE), each on a fresh server and store.
func onEachStore(t *testing.T, opts envOptions, fn func(t *testing.T, e *env)) {
	t.Helper()
	testbackends.Each(t, func(t *testing.T, backend string) {
		opts := opts
		opts.backend = backend
		fn(t, newEnv(t, opts))
	})
}

// onEachStoreAndRevision is onEachStore with one subtest per protocol
// revision within each backend, each on its own server.
func onEachStoreAndRevision(t *testing.T, fn func(t *testing.T, e *env, version string)) {
	t.Helper()
	testbackends.Each(t, func(t *testing.T, backend string) {
		for _, version := range []string{legacyVersion, modernVersion} {
			t.Run(version, func(t *testing.T) { fn(t, newEnv(t, envOptions{backend: backend}), version) })
		}
	})
}

func newEnv(t *testing.T, opts envOptions) *env {
	t.Helper()
	if opts.principal == (board.Principal{}) {
		opts.principal = agent
	}
	if opts.backend == "" {
		opts.backend = testbackends.SQLite
	}
	b := testbackends.Open(t, opts.backend)
	e := env{Store: b.Store, Witness: witness(b)}
	store := e.Store
	if opts.wrap != nil {
		store = opts.wrap(store)
	}
	svc, err := board.NewService(board.Config{Store: store, BaseURL: "http://board.test", Runner: opts.runner})
	if err != nil {
		t.Fatal(err)
	}
	e.Svc = svc
	server := mcpserver.NewServer(svc, mcpserver.Options{Principal: mcpserver.StaticPrincipal(opts.principal)})
	var h http.Handler = mcpserver.Handler(server, mcpserver.HandlerOptions{})
	if opts.wrapHandler != nil {
		h = opts.wrapHandler(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	e.URL = ts.URL + "/mcp"
	return &e
}

// witness reads the backend's own records: the database file with plain
// SQL, or the table with a consistent DynamoDB scan.
func witness(b *testbackends.Backend) func(*testing.T) map[string]int {
	if b.Name == testbackends.SQLite {
		return func(t *testing.T) map[string]int { return rowCounts(t, b.SQLitePath) }
	}
	return func(t *testing.T) map[string]int {
		client, err := dynamo.NewClient(context.Background(), dynamo.ClientConfig{Endpoint: b.Endpoint})
		if err != nil {
			t.Fatal(err)
		}
		return scanCounts(t, client, b.Table)
	}
}

// scanCounts counts items by their type attribute with a consistent scan.
func scanCounts(t *testing.T, client *dynamodb.Client, table string) map[string]int {
	t.Helper()
	names := map[string]string{"ticket": "tickets", "note": "notes", "event": "events", "request": "requests"}
	out := map[string]int{"tickets": 0, "notes": 0, "events": 0, "requests": 0}
	p := dynamodb.NewScanPaginator(client, &dynamodb.ScanInput{TableName: &table, ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range page.Items {
			if v, ok := item["type"].(*types.AttributeValueMemberS); ok && names[v.Value] != "" {
				out[names[v.Value]]++
			}
		}
	}
	return out
}

// callBound bounds each connect, call and read, so that one that hangs
// fails its test instead of stalling the run. It is no measure of speed:
// under make test every package shares one moto server, which answers one
// write at a time, and on a loaded machine the largest tickets' writes
// wait their turn there and on minidyn.
const callBound = 30 * time.Second

// connect opens a go-sdk client session at the given protocol revision.
func connect(t *testing.T, url, version string, httpClient *http.Client) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "ticket-ledger-tests", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), callBound)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: httpClient, MaxRetries: -1, DisableStandaloneSSE: true},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect %s: %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated %s, want %s", got, version)
	}
	return cs
}

// callRaw calls a tool and returns the raw result (tool errors included).
func callRaw(t *testing.T, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callBound)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", tool, err)
	}
	return res
}

// call calls a tool that must succeed and decodes its structured result.
func call[T any](t *testing.T, cs *mcp.ClientSession, tool string, args any) T {
	t.Helper()
	res := callRaw(t, cs, tool, args)
	if res.IsError {
		t.Fatalf("%s(%v): tool error: %s", tool, args, errorText(res))
	}
	return decode[T](t, res)
}

// callErr calls a tool that must fail with a tool error and returns its text.
func callErr(t *testing.T, cs *mcp.ClientSession, tool string, args any) string {
	t.Helper()
	res := callRaw(t, cs, tool, args)
	if !res.IsError {
		t.Fatalf("%s(%v): succeeded, want a tool error", tool, args)
	}
	return errorText(res)
}

func errorText(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			return tc.Text
		}
	}
	return ""
}

// countTickets asks the store directly, bypassing MCP, how many tickets a
// workspace holds.
func countTickets(t *testing.T, st board.Store, workspace string) int {
	t.Helper()
	w, err := st.GetWorkspace(context.Background(), workspace)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range w.Counts {
		n += c
	}
	return n
}

func human() context.Context {
	return board.WithPrincipal(context.Background(), board.Principal{Author: "human", Role: board.RoleAdmin, Source: board.SourceWeb})
}

func toolParams(name string, args any) *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: name, Arguments: args}
}

type (
	mcpSession = mcp.ClientSession
	mcpResult  = mcp.CallToolResult
)

// decode reads a successful result's structured content.
func decode[T any](t *testing.T, res *mcp.CallToolResult) T {
	t.Helper()
	var out T
	raw, err := json.Marshal(res.StructuredContent)
	if err == nil {
		err = json.Unmarshal(raw, &out)
	}
	if err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	return out
}

// rowCounts reads the database file with plain SQL: how many tickets, notes,
// events and request records exist, whatever the service believes.
func rowCounts(t *testing.T, dbPath string) map[string]int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+dbPath+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := map[string]int{}
	for _, table := range []string{"tickets", "notes", "events", "requests"} {
		var n int
		if err := db.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	return out
}
