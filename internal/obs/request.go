package obs

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Request is what one request did, filled in by whichever layer knows it:
// the middleware (surface, route, status, latency), the MCP adapter (method
// and tool), the credential resolver (principal), the use cases (replayed,
// task id, error) and the stores (requests, throttles, conflicts). Every
// method is safe on a nil *Request (a context without one), so code that
// notes something never has to check.
type Request struct {
	start time.Time

	// Counters the stores bump, possibly from several goroutines.
	storeRequests  atomic.Int64
	storeThrottles atomic.Int64
	storeConflicts atomic.Int64
	rowsImported   atomic.Int64

	mu         sync.Mutex
	id         string
	surface    string
	route      string
	routeSet   bool   // route was noted by a handler (a pattern), not made from the path
	pattern    string // the pattern of the mux that dispatched the request
	method     string
	tool       string
	author     string
	onBehalfOf string
	replayed   bool
	taskID     string
	errCode    string
	errID      string
	errCause   string
}

type requestKey struct{}

// NewContext returns ctx carrying r.
func NewContext(ctx context.Context, r *Request) context.Context {
	return context.WithValue(ctx, requestKey{}, r)
}

// FromContext returns the request record ctx carries, or nil.
func FromContext(ctx context.Context) *Request {
	r, _ := ctx.Value(requestKey{}).(*Request)
	return r
}

// CountStoreRequest notes one request to the store (a DynamoDB call, an
// SQLite statement) made for the request ctx belongs to.
func CountStoreRequest(ctx context.Context) { FromContext(ctx).addStore() }

// CountStoreThrottle notes a request the store refused for capacity
// (DynamoDB throttling, SQLite busy).
func CountStoreThrottle(ctx context.Context) {
	if r := FromContext(ctx); r != nil {
		r.storeThrottles.Add(1)
	}
}

// CountStoreConflict notes a write that met another on the same item
// (DynamoDB TransactionConflict) and was tried again.
func CountStoreConflict(ctx context.Context) {
	if r := FromContext(ctx); r != nil {
		r.storeConflicts.Add(1)
	}
}

// CountRowsImported notes rows an import committed (a chunk of a task).
func CountRowsImported(ctx context.Context, n int) {
	if r := FromContext(ctx); r != nil {
		r.rowsImported.Add(int64(n))
	}
}

// RowsImported is how many rows the request's work imported.
func (r *Request) RowsImported() int64 {
	if r == nil {
		return 0
	}
	return r.rowsImported.Load()
}

// StoreRequests is how many store requests the request made so far.
func (r *Request) StoreRequests() int64 {
	if r == nil {
		return 0
	}
	return r.storeRequests.Load()
}

// StoreThrottles is how many store requests were refused for capacity.
func (r *Request) StoreThrottles() int64 {
	if r == nil {
		return 0
	}
	return r.storeThrottles.Load()
}

// StoreConflicts is how many store writes met another transaction.
func (r *Request) StoreConflicts() int64 {
	if r == nil {
		return 0
	}
	return r.storeConflicts.Load()
}

// NewRequest starts a record for work that is not an HTTP request (a task
// worker's invocation).
func NewRequest(id string) *Request { return &Request{id: id, start: time.Now()} }

func (r *Request) addStore() {
	if r != nil {
		r.storeRequests.Add(1)
	}
}

// SetMethod notes the MCP method (tools/call, initialize, tasks/get, …).
func SetMethod(ctx context.Context, method string) {
	FromContext(ctx).set(func(r *Request) { r.method = method })
}

// SetTool notes the MCP tool a tools/call called.
func SetTool(ctx context.Context, tool string) {
	FromContext(ctx).set(func(r *Request) { r.tool = tool })
}

// SetRoute notes the route pattern that served the request (REST:
// "POST /api/v1/workspaces/{slug}/tickets"); without it the log names the
// method and the path.
func SetRoute(ctx context.Context, route string) {
	FromContext(ctx).set(func(r *Request) { r.route, r.routeSet = route, true })
}

// SetPrincipal notes who is calling: the author and whom it acts for. Never
// a credential.
func SetPrincipal(ctx context.Context, author, onBehalfOf string) {
	FromContext(ctx).set(func(r *Request) { r.author, r.onBehalfOf = author, onBehalfOf })
}

// SetReplayed notes that the answer was a stored result answering a retry.
func SetReplayed(ctx context.Context) {
	FromContext(ctx).set(func(r *Request) { r.replayed = true })
}

// SetTaskID notes the durable task the request started or answered.
func SetTaskID(ctx context.Context, id string) {
	FromContext(ctx).set(func(r *Request) { r.taskID = id })
}

// SetError notes the error the caller was given: its code (not_found,
// forbidden, request_id_reused, internal, …), and for an internal error the
// id the caller saw and the cause only the log shows.
func SetError(ctx context.Context, code, errorID string, cause error) {
	FromContext(ctx).set(func(r *Request) {
		r.errCode, r.errID = code, errorID
		if cause != nil {
			r.errCause = cause.Error()
		}
	})
}

func (r *Request) set(f func(*Request)) {
	if r == nil {
		return
	}
	r.mu.Lock()
	f(r)
	r.mu.Unlock()
}

// Summary is a finished request as the log line and the metrics see it.
type Summary struct {
	ID             string
	Surface        string
	Route          string
	Method         string
	Tool           string
	Author         string
	OnBehalfOf     string
	Status         int
	Latency        time.Duration
	StoreRequests  int64
	StoreThrottles int64
	StoreConflicts int64
	Replayed       bool
	TaskID         string
	ErrorCode      string
	ErrorID        string
	ErrorCause     string
	operation      string
}

// Operation names what was called, for the metrics' Operation dimension:
// the tool of a tools/call, else the MCP method (one the server knows, else
// "other"), else the route pattern. Never a path: a dimension's values must
// be few (each combination is a metric CloudWatch bills), and paths hold
// ticket ids, and whatever a scanner tries.
func (s Summary) Operation() string {
	switch {
	case s.operation != "":
		return s.operation // the middleware's
	case s.Tool != "":
		return s.Tool
	case s.Method != "":
		return s.Method
	}
	return s.Route
}

func (r *Request) operation(httpMethod string) string {
	switch {
	case r.tool != "":
		return r.tool
	case r.method != "":
		if knownMCPMethods[r.method] {
			return r.method
		}
		return "other"
	case r.routeSet:
		return r.route
	case r.pattern == "":
		return "unmatched"
	case strings.Contains(r.pattern, " "):
		return r.pattern // "GET /healthz"
	}
	return httpMethod + " " + r.pattern // "POST /" (the board), "GET /mcp"
}

// knownMCPMethods are the methods the server answers; anything else a
// client sends is "other" in the metrics (the log line names it).
var knownMCPMethods = map[string]bool{
	"initialize": true, "notifications/initialized": true, "ping": true, "server/discover": true,
	"tools/list": true, "tools/call": true, "notifications/cancelled": true,
	"tasks/get": true, "tasks/update": true, "tasks/cancel": true, "tasks/list": true, "tasks/result": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true,
	"prompts/list": true, "prompts/get": true, "logging/setLevel": true,
}

func (r *Request) summary(status int, end time.Time, httpMethod string) Summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Summary{operation: r.operation(httpMethod),
		ID: r.id, Surface: r.surface, Route: r.route, Method: r.method, Tool: r.tool,
		Author: r.author, OnBehalfOf: r.onBehalfOf, Status: status, Latency: end.Sub(r.start),
		StoreRequests: r.storeRequests.Load(), StoreThrottles: r.storeThrottles.Load(), StoreConflicts: r.storeConflicts.Load(),
		Replayed: r.replayed, TaskID: r.taskID, ErrorCode: r.errCode, ErrorID: r.errID, ErrorCause: r.errCause,
	}
}
