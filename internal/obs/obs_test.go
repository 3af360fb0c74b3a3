package obs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/obs"
	"github.com/ticket-ledger/ticket-ledger/internal/obs/obstest"
)

// Every line the metrics writer produces is valid EMF, names every metric
// with its unit, and carries the dimensions as top-level strings.
func TestMetricsLinesAreEMF(t *testing.T) {
	var buf bytes.Buffer
	m := obs.NewMetrics(&buf)
	m.EmitRequest(obs.Summary{ID: "req-1", Surface: obs.SurfaceMCP, Method: "tools/call", Tool: "create_ticket", Status: 200,
		Latency: 12500 * time.Microsecond, StoreRequests: 2, StoreThrottles: 1, Replayed: true})
	m.EmitRequest(obs.Summary{ID: "req-2", Surface: obs.SurfaceREST, Route: "POST /api/v1/workspaces/{slug}/tickets", Status: 422,
		ErrorCode: obs.CodeRequestReused})
	m.EmitRequest(obs.Summary{ID: "req-3", Surface: obs.SurfaceMCP, Tool: "create_ticket", Status: 200, ErrorCode: obs.CodeForbidden})
	m.EmitRequest(obs.Summary{ID: "req-4", Surface: obs.SurfaceMCP, Tool: "get_ticket", Status: 200, ErrorCode: obs.CodeInternal, ErrorID: "err-1"})
	m.EmitTask("task-1", 250, false)
	m.EmitTask("task-1", 0, true)

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d lines, want 6:\n%s", len(lines), buf.String())
	}
	var parsed []obstest.EMF
	for _, l := range lines {
		e, err := obstest.ParseEMF([]byte(l))
		if err != nil {
			t.Fatalf("invalid EMF (%v): %s", err, l)
		}
		if e.Directives[0].Namespace != obs.Namespace {
			t.Errorf("namespace %q", e.Directives[0].Namespace)
		}
		parsed = append(parsed, e)
	}
	first := parsed[0]
	units := map[string]string{}
	for _, d := range first.Directives[0].Metrics {
		units[d.Name] = d.Unit
	}
	for name, unit := range map[string]string{obs.MetricCalls: "Count", obs.MetricErrors: "Count", obs.MetricReplays: "Count",
		obs.MetricMismatches: "Count", obs.MetricPolicyRefusals: "Count", obs.MetricLatency: "Milliseconds",
		obs.MetricStoreRequests: "Count", obs.MetricStoreThrottles: "Count", obs.MetricStoreConflicts: "Count"} {
		if units[name] != unit {
			t.Errorf("metric %s has unit %q, want %q", name, units[name], unit)
		}
	}
	if got := first.Members[obs.DimOperation]; got != "create_ticket" {
		t.Errorf("an MCP tool call's Operation is %v, want the tool", got)
	}
	for name, want := range map[string]float64{obs.MetricCalls: 1, obs.MetricReplays: 1, obs.MetricLatency: 12.5, obs.MetricStoreRequests: 2, obs.MetricStoreThrottles: 1, obs.MetricErrors: 0} {
		if got := first.Value(name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if parsed[1].Value(obs.MetricMismatches) != 1 || parsed[1].Members[obs.DimOperation] != "POST /api/v1/workspaces/{slug}/tickets" {
		t.Errorf("a reused request_id: %v", parsed[1].Members)
	}
	if parsed[2].Value(obs.MetricPolicyRefusals) != 1 {
		t.Errorf("a policy refusal: %v", parsed[2].Members)
	}
	if parsed[3].Value(obs.MetricErrors) != 1 {
		t.Errorf("an internal error answered as a tool result (HTTP 200) is an error: %v", parsed[3].Members)
	}
	if parsed[4].Value(obs.MetricTaskRowsImported) != 250 || parsed[4].Value(obs.MetricTaskFailures) != 0 ||
		parsed[5].Value(obs.MetricTaskFailures) != 1 || parsed[4].Members["task_id"] != "task-1" {
		t.Errorf("task lines: %v %v", parsed[4].Members, parsed[5].Members)
	}
	// A nil writer (the local default) writes nothing and does not fail.
	var off *obs.Metrics
	off.EmitRequest(obs.Summary{})
	off.EmitTask("x", 1, true)
}

// The checker itself refuses what the specification refuses: each of these
// lines breaks one rule.
func TestParseEMFRefusesInvalidLines(t *testing.T) {
	for name, line := range map[string]string{
		"no _aws":              `{"Calls":1}`,
		"timestamp not int":    `{"_aws":{"Timestamp":"now","CloudWatchMetrics":[{"Namespace":"N","Dimensions":[],"Metrics":[]}]}}`,
		"no directives":        `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[]}}`,
		"no namespace":         `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Dimensions":[],"Metrics":[]}]}}`,
		"dimension missing":    `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"N","Dimensions":[["Surface"]],"Metrics":[]}]}}`,
		"dimension not string": `{"Surface":1,"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"N","Dimensions":[["Surface"]],"Metrics":[]}]}}`,
		"metric missing":       `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"N","Dimensions":[],"Metrics":[{"Name":"Calls"}]}]}}`,
		"metric not number":    `{"Calls":"1","_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"N","Dimensions":[],"Metrics":[{"Name":"Calls"}]}]}}`,
		"unknown unit":         `{"Calls":1,"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"N","Dimensions":[],"Metrics":[{"Name":"Calls","Unit":"Things"}]}]}}`,
	} {
		if _, err := obstest.ParseEMF([]byte(line)); err == nil {
			t.Errorf("%s: accepted %s", name, line)
		}
	}
	ok := `{"Calls":[1,2],"Surface":"mcp","_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"N","Dimensions":[["Surface"]],"Metrics":[{"Name":"Calls","Unit":"Count","StorageResolution":60}]}]}}`
	if _, err := obstest.ParseEMF([]byte(ok)); err != nil {
		t.Errorf("refused a valid line: %v", err)
	}
}

// The middleware writes one line per request with what the layers noted,
// the platform's request id when there is one, and the status the handler
// answered; the store counters are safe to bump from several goroutines.
func TestMiddlewareWritesOneLinePerRequest(t *testing.T) {
	var logs, metrics bytes.Buffer
	h := obs.Middleware(obs.Config{
		Logger:    slog.New(slog.NewJSONHandler(&logs, nil)),
		Metrics:   obs.NewMetrics(&metrics),
		RequestID: func(r *http.Request) string { return r.Header.Get("X-Test-Request-Id") },
	}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		switch r.URL.Path {
		case "/mcp":
			obs.SetMethod(ctx, "tools/call")
			obs.SetTool(ctx, "create_ticket")
			obs.SetPrincipal(ctx, "ai:claude", "human:alice")
			var wg sync.WaitGroup
			for range 10 {
				wg.Go(func() { obs.CountStoreRequest(ctx) })
			}
			wg.Wait()
			obs.SetReplayed(ctx)
			obs.SetTaskID(ctx, "task-9")
			w.Write([]byte("{}"))
		case "/api/v1/tickets/inbox-1":
			obs.SetRoute(ctx, "GET /api/v1/tickets/{id}")
			obs.SetError(ctx, obs.CodeInternal, "err-abc", errors.New("dynamodb: connection reset"))
			w.WriteHeader(http.StatusInternalServerError)
		default:
			// nothing written: net/http answers 200
		}
	}))
	for _, req := range []*http.Request{
		httptest.NewRequest("POST", "/mcp", nil),
		httptest.NewRequest("GET", "/api/v1/tickets/inbox-1", nil),
		httptest.NewRequest("GET", "/invite/s3cr3t-invitation?x=y", nil),
	} {
		if req.URL.Path == "/mcp" {
			req.Header.Set("X-Test-Request-Id", "apigw-123")
		}
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	lines := decodeLines(t, logs.String())
	if len(lines) != 3 {
		t.Fatalf("%d lines for 3 requests:\n%s", len(lines), logs.String())
	}
	mcp, rest, web := lines[0], lines[1], lines[2]
	for k, want := range map[string]any{"level": "INFO", "msg": "request", "request_id": "apigw-123", "surface": "mcp", "route": "POST /mcp",
		"mcp_method": "tools/call", "tool": "create_ticket", "author": "ai:claude", "on_behalf_of": "human:alice",
		"status": 200.0, "store_requests": 10.0, "replayed": true, "task_id": "task-9"} {
		if mcp[k] != want {
			t.Errorf("mcp line %s = %v, want %v", k, mcp[k], want)
		}
	}
	if _, ok := mcp["latency_ms"].(float64); !ok {
		t.Errorf("mcp line has no latency_ms: %v", mcp)
	}
	for k, want := range map[string]any{"level": "ERROR", "surface": "rest", "route": "GET /api/v1/tickets/{id}", "status": 500.0,
		"error_code": "internal", "error_id": "err-abc", "error": "dynamodb: connection reset", "replayed": false} {
		if rest[k] != want {
			t.Errorf("rest line %s = %v, want %v", k, rest[k], want)
		}
	}
	if !strings.HasPrefix(rest["request_id"].(string), "req-") {
		t.Errorf("without the platform's id, the line has none made here: %v", rest["request_id"])
	}
	if web["route"] != "GET /invite/{secret}" || web["status"] != 200.0 || web["surface"] != "web" {
		t.Errorf("web line: %v", web)
	}
	if strings.Contains(logs.String(), "s3cr3t") || strings.Contains(logs.String(), "x=y") {
		t.Errorf("an invitation secret or a query reached the log:\n%s", logs.String())
	}
	for _, l := range strings.Split(strings.TrimSpace(metrics.String()), "\n") {
		if _, err := obstest.ParseEMF([]byte(l)); err != nil {
			t.Errorf("invalid EMF (%v): %s", err, l)
		}
	}
	// Outside a request nothing is noted, and nothing fails.
	obs.CountStoreRequest(context.Background())
	obs.SetError(context.Background(), "x", "y", nil)
}

func decodeLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %s", l)
		}
		out = append(out, m)
	}
	return out
}

func TestSurfaceOf(t *testing.T) {
	for path, want := range map[string]string{"/mcp": "mcp", "/api/v1/workspaces": "rest", "/healthz": "health",
		"/oauth/token": "oauth", "/.well-known/oauth-authorization-server": "oauth", "/": "web", "/tickets/inbox-1": "web", "/mcpx": "web"} {
		if got := obs.SurfaceOf(path); got != want {
			t.Errorf("SurfaceOf(%q) = %q, want %q", path, got, want)
		}
	}
}

// The metrics' Operation has few values whatever the paths: the tool, a
// known MCP method (else "other"), a handler's route pattern, else the
// pattern of the mux that matched (with the HTTP method when it has none),
// else "unmatched"; never a path with an id in it.
func TestOperationIsBounded(t *testing.T) {
	var metrics bytes.Buffer
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		obs.SetMethod(r.Context(), r.Header.Get("X-Method"))
		if r.Header.Get("X-Tool") != "" {
			obs.SetTool(r.Context(), r.Header.Get("X-Tool"))
		}
	})
	mux.HandleFunc("/api/v1/", func(w http.ResponseWriter, r *http.Request) {
		obs.SetRoute(r.Context(), "GET /api/v1/tickets/{id}")
	})
	mux.HandleFunc("/", func(http.ResponseWriter, *http.Request) {})
	only := http.NewServeMux()
	only.Handle("/mcp", mux)
	h := obs.Middleware(obs.Config{Metrics: obs.NewMetrics(&metrics)}, mux)
	hOnly := obs.Middleware(obs.Config{Metrics: obs.NewMetrics(&metrics)}, only)
	for _, c := range []struct {
		h                       http.Handler
		method, path, rpc, tool string
		want                    string
	}{
		{h, "GET", "/healthz", "", "", "GET /healthz"},
		{h, "POST", "/mcp", "tools/call", "create_ticket", "create_ticket"},
		{h, "POST", "/mcp", "tools/list", "", "tools/list"},
		{h, "POST", "/mcp", "made/up-42", "", "other"},
		{h, "GET", "/api/v1/tickets/inbox-7", "", "", "GET /api/v1/tickets/{id}"},
		{h, "GET", "/tickets/inbox-7", "", "", "GET /"},
		{h, "POST", "/w/inbox/tickets", "", "", "POST /"},
		{hOnly, "GET", "/wp-admin/setup.php", "", "", "unmatched"},
	} {
		metrics.Reset()
		req := httptest.NewRequest(c.method, c.path, nil)
		req.Header.Set("X-Method", c.rpc)
		req.Header.Set("X-Tool", c.tool)
		c.h.ServeHTTP(httptest.NewRecorder(), req)
		e, err := obstest.ParseEMF(bytes.TrimSpace(metrics.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Members[obs.DimOperation]; got != c.want {
			t.Errorf("%s %s (%s %s): Operation %v, want %s", c.method, c.path, c.rpc, c.tool, got, c.want)
		}
	}
}
