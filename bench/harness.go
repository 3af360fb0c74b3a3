// Package bench measures create_ticket over HTTP on the embedded store
// against a bare go-sdk server with one no-op tool, both served the same way
// (stateless streamable HTTP, JSON responses, a real loopback listener), so
// the ratio between them is what the ledger, the store and the service cost
// on top of the MCP transport. The go test benchmarks and the
// cmd/createvsnoop table share this harness.
package bench

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
	modernc "modernc.org/sqlite"
)

// Target is one server under measurement and the call a client makes to it.
type Target struct {
	Name string
	URL  string
	Tool string
	// Args builds the arguments of call n; n is unique per target, so write
	// calls never replay.
	Args func(n int64) map[string]any
	// Service is the use-case layer behind create (nil for noop), for
	// measuring the store without HTTP and MCP (ConnectDirect).
	Service *board.Service
	close   func()
}

// Close stops the server and releases its store.
func (t *Target) Close() { t.close() }

// transportOptions are the /mcp options of the real server (mcpserver.Handler).
func transportOptions() *mcp.StreamableHTTPOptions {
	return &mcp.StreamableHTTPOptions{
		Stateless:                    true,
		JSONResponse:                 true,
		PropagateRequestCancellation: true,
		MaxRequestBodyBytes:          mcpserver.MaxBodyBytes,
	}
}

var quiet = slog.New(slog.DiscardHandler)

// NoopArgs has the shape of create_ticket's required arguments, so both
// servers decode and validate a like-sized request.
type NoopArgs struct {
	RequestID string `json:"request_id"`
	Workspace string `json:"workspace"`
	Title     string `json:"title"`
}

// NoopResult is the no-op tool's structured result.
type NoopResult struct {
	RequestID string `json:"request_id"`
}

// NewNoop serves a bare go-sdk server with one tool that does nothing.
func NewNoop() *Target {
	s := mcp.NewServer(&mcp.Implementation{Name: "noop", Version: "0.0.1"}, &mcp.ServerOptions{Logger: quiet})
	mcp.AddTool(s, &mcp.Tool{Name: "noop", Description: "does nothing"},
		func(_ context.Context, _ *mcp.CallToolRequest, in NoopArgs) (*mcp.CallToolResult, NoopResult, error) {
			return nil, NoopResult{RequestID: in.RequestID}, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, transportOptions()))
	return &Target{Name: "noop", URL: hs.URL, Tool: "noop", Args: ticketArgs("noop"), close: hs.Close}
}

// NewCreate serves the real MCP server (mcpserver.NewServer and Handler, as
// functions/mcp wires them) on the embedded SQLite store in dir.
func NewCreate(ctx context.Context, dir string) (*Target, error) {
	store, err := sqlite.OpenDir(ctx, dir)
	if err != nil {
		return nil, err
	}
	svc, err := board.NewService(board.Config{Store: store, BaseURL: "http://127.0.0.1", Logger: quiet})
	if err != nil {
		store.Close()
		return nil, err
	}
	server := mcpserver.NewServer(svc, mcpserver.Options{
		Principal: mcpserver.StaticPrincipal(board.Principal{Author: "ai:bench", Source: board.SourceMCP}),
		Logger:    quiet,
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpserver.Handler(server, mcpserver.HandlerOptions{}))
	hs := httptest.NewServer(mux)
	return &Target{Name: "create", URL: hs.URL + "/mcp", Tool: "create_ticket", Args: ticketArgs("create"),
		Service: svc, close: func() { hs.Close(); store.Close() }}, nil
}

// runID keeps request_ids unique across targets and runs in one process.
var runID = fmt.Sprintf("%x", time.Now().UnixNano())

func ticketArgs(kind string) func(n int64) map[string]any {
	return func(n int64) map[string]any {
		return map[string]any{
			"request_id": fmt.Sprintf("bench-%s-%s-%d", runID, kind, n),
			"workspace":  "inbox",
			"title":      fmt.Sprintf("benchmark ticket %d", n),
		}
	}
}

// Result is one measured run.
type Result struct {
	Target   string
	Clients  int
	Calls    int
	Elapsed  time.Duration
	P50, P99 time.Duration
	// CPU is the processor time this process spent during the run (user
	// and system, server and clients together): unlike throughput, it
	// hardly moves when other work shares the machine.
	CPU time.Duration
}

// Throughput is calls per second.
func (r Result) Throughput() float64 { return float64(r.Calls) / r.Elapsed.Seconds() }

// CPUPerCall is the processor time one call cost, server and client.
func (r Result) CPUPerCall() time.Duration {
	if r.Calls == 0 {
		return 0
	}
	return r.CPU / time.Duration(r.Calls)
}

// processCPU is the processor time this process has used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Client is a pool of concurrent callers: MCP sessions, or direct callers
// of the service.
type Client struct {
	name     string
	target   *Target
	sessions []*mcp.ClientSession
	callers  int
	http     *http.Client
	next     *atomic.Int64
}

// principal is who the direct callers are, as the MCP target's principal.
var principal = board.Principal{Author: "ai:bench", Source: board.SourceMCP}

// ConnectDirect makes n callers of t's service (create only): the same
// create_ticket work minus HTTP, JSON-RPC and schema validation, which
// shows what the store alone can do.
func ConnectDirect(t *Target, n int) (*Client, error) {
	if t.Service == nil {
		return nil, fmt.Errorf("%s has no service to call directly", t.Name)
	}
	return &Client{name: "service", target: t, callers: n, http: &http.Client{}, next: new(atomic.Int64)}, nil
}

func (c *Client) callDirect(ctx context.Context) error {
	a := c.target.Args(c.next.Add(1))
	in := board.CreateTicketInput{RequestID: a["request_id"].(string) + "-direct", Workspace: a["workspace"].(string), NewTicket: board.NewTicket{Title: a["title"].(string)}}
	_, err := c.target.Service.CreateTicket(board.WithPrincipal(ctx, principal), in)
	return err
}

// Connect opens n sessions to t (2026-07-28 discovery or 2025-11-25
// initialize happens here, outside any measurement).
func Connect(ctx context.Context, t *Target, n int) (*Client, error) {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConns: 4 * n, MaxIdleConnsPerHost: 4 * n}}
	c := &Client{name: t.Name, target: t, callers: n, http: hc, next: new(atomic.Int64)}
	for range n {
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0.0.1"}, &mcp.ClientOptions{Logger: quiet})
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
			Endpoint: t.URL, HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true,
		}, nil)
		if err != nil {
			c.Close()
			return nil, err
		}
		c.sessions = append(c.sessions, cs)
	}
	return c, nil
}

// Close ends every session.
func (c *Client) Close() {
	for _, cs := range c.sessions {
		cs.Close()
	}
	c.http.CloseIdleConnections()
}

func (c *Client) call(ctx context.Context, cs *mcp.ClientSession) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.target.Tool, Arguments: c.target.Args(c.next.Add(1))})
	if err != nil {
		return err
	}
	if res.IsError {
		var texts []string
		for _, ct := range res.Content {
			if tc, ok := ct.(*mcp.TextContent); ok {
				texts = append(texts, tc.Text)
			}
		}
		return fmt.Errorf("%s: %s", c.target.Tool, strings.Join(texts, "; "))
	}
	return nil
}

// RunCalls makes total calls spread over every session, as fast as each
// session gets answers, and measures them.
func (c *Client) RunCalls(ctx context.Context, total int) (Result, error) {
	var left atomic.Int64
	left.Store(int64(total))
	return c.run(ctx, func() bool { return left.Add(-1) >= 0 })
}

// RunFor keeps every session calling for d and measures the calls.
func (c *Client) RunFor(ctx context.Context, d time.Duration) (Result, error) {
	deadline := time.Now().Add(d)
	return c.run(ctx, func() bool { return time.Now().Before(deadline) })
}

func (c *Client) run(ctx context.Context, more func() bool) (Result, error) {
	lat := make([][]time.Duration, c.callers)
	errs := make([]error, c.callers)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	cpu0 := processCPU()
	start := time.Now()
	for i := range c.callers {
		call := c.callDirect
		if c.sessions != nil {
			cs := c.sessions[i]
			call = func(ctx context.Context) error { return c.call(ctx, cs) }
		}
		wg.Go(func() {
			for more() {
				t0 := time.Now()
				if err := call(ctx); err != nil {
					errs[i] = err
					cancel()
					return
				}
				lat[i] = append(lat[i], time.Since(t0))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := processCPU() - cpu0
	if err := errors.Join(errs...); err != nil {
		return Result{}, err
	}
	all := slices.Concat(lat...)
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	r := Result{Target: c.name, Clients: c.callers, Calls: len(all), Elapsed: elapsed, CPU: cpu}
	if len(all) > 0 {
		r.P50, r.P99 = percentile(all, 50), percentile(all, 99)
	}
	return r, nil
}

// percentile of sorted durations (nearest rank).
func percentile(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p + 99) / 100
	return sorted[max(i-1, 0)]
}

var syncOnce sync.Once

// OverrideSynchronous sets PRAGMA synchronous on every SQLite connection this
// process opens from now on, after the store's own DSN pragmas: a
// measurement knob for comparing durability levels, not a store setting.
// Empty leaves the store's setting alone. Call it at most once, before
// opening a store.
func OverrideSynchronous(level string) error {
	if level == "" {
		return nil
	}
	switch strings.ToUpper(level) {
	case "OFF", "NORMAL", "FULL", "EXTRA":
	default:
		return fmt.Errorf("synchronous %q: want OFF, NORMAL, FULL or EXTRA", level)
	}
	syncOnce.Do(func() {
		modernc.RegisterConnectionHook(func(conn modernc.ExecQuerierContext, _ string) error {
			_, err := conn.ExecContext(context.Background(), "PRAGMA synchronous = "+strings.ToUpper(level), []driver.NamedValue{})
			return err
		})
	})
	return nil
}
