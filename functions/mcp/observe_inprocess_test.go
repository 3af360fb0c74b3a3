package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
	"github.com/ticket-ledger/ticket-ledger/internal/obs"
	"github.com/ticket-ledger/ticket-ledger/internal/obs/obstest"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
)

// failingCreates is a store whose creates fail as a broken disk would.
type failingCreates struct{ storetest.Store }

func (failingCreates) CreateTicket(context.Context, board.CreateTx) (ledger.Record, error) {
	return ledger.Record{}, errors.New("disk I/O error: sector 7 unreadable")
}

var errorIDInText = regexp.MustCompile(`error id (err-[0-9a-f]{12})`)

// An internal error: the caller gets an error id and no cause; the
// request's line has the same error id, the cause, level ERROR, and the
// metrics count an error — over MCP (a tool error, HTTP 200) and REST (500).
func TestInternalErrorLogLine(t *testing.T) {
	st, err := sqlite.Open(context.Background(), t.TempDir()+"/ledger.db")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cfg, err := loadConfig(mapEnv(map[string]string{envAuthor: "ai:obs"}))
	if err != nil {
		t.Fatal(err)
	}
	var logs, metrics bytes.Buffer
	cfg.metricsOut = &metrics
	h, err := newHandler(cfg, failingCreates{st}, slog.New(slog.NewJSONHandler(&logs, nil)), mcpserver.HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	serve := func(req *http.Request) *httptest.ResponseRecorder {
		req.Host = "127.0.0.1:8080"
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	mcpReq := httptest.NewRequest("POST", "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_ticket","arguments":{"request_id":"boom-1","workspace":"inbox","title":"t"}}}`))
	mcpReq.Header.Set("Content-Type", "application/json")
	mcpReq.Header.Set("Accept", "application/json, text/event-stream")
	mcpReq.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	mcpRec := serve(mcpReq)
	restReq := httptest.NewRequest("POST", "/api/v1/workspaces/inbox/tickets", strings.NewReader(`{"title":"t"}`))
	restReq.Header.Set("Content-Type", "application/json")
	restReq.Header.Set("Idempotency-Key", "boom-2")
	restRec := serve(restReq)

	var problem struct {
		ErrorID string `json:"error_id"`
	}
	json.Unmarshal(restRec.Body.Bytes(), &problem)
	m := errorIDInText.FindStringSubmatch(mcpRec.Body.String())
	if m == nil || restRec.Code != 500 || problem.ErrorID == "" {
		t.Fatalf("want error ids in both answers: MCP %s; REST %d %s", mcpRec.Body, restRec.Code, restRec.Body)
	}
	for _, body := range []string{mcpRec.Body.String(), restRec.Body.String()} {
		if strings.Contains(body, "sector 7") {
			t.Errorf("the cause reached the caller: %s", body)
		}
	}
	var reqLines []map[string]any
	internal := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var line map[string]any
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("not JSON: %s", l)
		}
		switch line["msg"] {
		case "request":
			reqLines = append(reqLines, line)
		case "internal error": // the service's own line, under the same id
			internal[line["error_id"].(string)] = true
		}
	}
	if len(reqLines) != 2 {
		t.Fatalf("%d request lines, want 2:\n%s", len(reqLines), logs.String())
	}
	for i, id := range []string{m[1], problem.ErrorID} {
		l := reqLines[i]
		if l["error_id"] != id || l["level"] != "ERROR" || l["error_code"] != "internal" || !strings.Contains(l["error"].(string), "sector 7") {
			t.Errorf("request line %d: %v, want error_id %s, level ERROR and the cause", i, l, id)
		}
		if !internal[id] {
			t.Errorf("no 'internal error' line under %s", id)
		}
	}
	for i, l := range strings.Split(strings.TrimSpace(metrics.String()), "\n") {
		e, err := obstest.ParseEMF([]byte(l))
		if err != nil {
			t.Fatalf("invalid EMF: %v", err)
		}
		if e.Value(obs.MetricErrors) != 1 {
			t.Errorf("metrics line %d counts no error: %v", i, e.Members)
		}
	}
}

// On Lambda the line carries API Gateway's request id from the event.
func TestLambdaLogLineCarriesAPIGatewayRequestID(t *testing.T) {
	var logs bytes.Buffer
	h := observed(config{}, slog.New(slog.NewJSONHandler(&logs, nil)), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	ev := events.APIGatewayV2HTTPRequest{RawPath: "/healthz", RequestContext: events.APIGatewayV2HTTPRequestContext{
		RequestID: "Ab1CdEfGhIjKlMn=", DomainName: "abc.execute-api.eu-west-1.amazonaws.com",
		HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "GET", Path: "/healthz"}}}
	if _, err := httpadapter.NewV2(h).ProxyWithContext(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
	var line map[string]any
	if err := json.Unmarshal(logs.Bytes(), &line); err != nil {
		t.Fatalf("%v: %s", err, logs.String())
	}
	if line["request_id"] != "Ab1CdEfGhIjKlMn=" || line["status"] != 204.0 {
		t.Errorf("line %v, want API Gateway's request id and status 204", line)
	}
}

// The log's form: JSON when stderr is a file or a pipe (and always in
// Lambda), text when LEDGER_LOG_FORMAT says so (the default on a
// terminal); info by default, so request lines show.
func TestLoggerFormat(t *testing.T) {
	write := func(env map[string]string) string {
		f, err := os.CreateTemp(t.TempDir(), "log")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		log := newLogger(mapEnv(env), f)
		log.Info("request", "status", 200)
		log.Debug("hidden")
		b, _ := os.ReadFile(f.Name())
		return string(b)
	}
	var line map[string]any
	out := write(nil)
	if err := json.Unmarshal([]byte(out), &line); err != nil || line["level"] != "INFO" || line["msg"] != "request" {
		t.Errorf("default off a terminal: %q, want one JSON line at INFO", out)
	}
	if out := write(map[string]string{envLogFormat: "text"}); !strings.HasPrefix(out, "time=") || !strings.Contains(out, "level=INFO msg=request status=200") {
		t.Errorf("LEDGER_LOG_FORMAT=text: %q", out)
	}
	if out := write(map[string]string{"LEDGER_LOG_LEVEL": "warn"}); out != "" {
		t.Errorf("at warn an info line was written: %q", out)
	}
	if sdkLevel(slog.LevelInfo) != slog.LevelWarn || sdkLevel(slog.LevelDebug) != slog.LevelDebug || sdkLevel(slog.LevelError) != slog.LevelError {
		t.Error("the go-sdk's level is warn unless the log's is debug (or above warn)")
	}
}
