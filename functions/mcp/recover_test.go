package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
	"github.com/ticket-ledger/ticket-ledger/internal/openingstore"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// A Lambda instance whose cold-start open failed (the table was not there)
// says so on /healthz and in its tool errors, without internals, and opens
// the store on a later call once it can: one failed open no longer breaks
// the instance for its life while /healthz answers ok.
func TestLambdaRecoversAfterAFailedOpen(t *testing.T) {
	mini := testbackends.StartMinidyn(t, nil)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_REGION", "us-east-1")
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
