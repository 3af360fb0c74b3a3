package rest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/fuzztest"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
	"github.com/ticket-ledger/ticket-ledger/internal/rest"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
)

// FuzzCreateTicketBody sends arbitrary bodies to POST
// /api/v1/workspaces/inbox/tickets through the API's real handler (the
// resolver, body reading, the route's schema validation and decoding, the
// service) on a SQLite store, and the same JSON as create_ticket
// arguments to /mcp of the same server, and holds the answers to:
//   - never a 5xx (REST) or an internal error (MCP), whatever the body;
//   - a refusal is a 4xx problem and writes nothing: no ticket, and
//     find_request does not know the Idempotency-Key;
//   - an acceptance (201) stored exactly what the body says, read as plain
//     JSON by its exact names (internal/fuzztest), within the board's
//     limits; so a key in another case ({"Title":...}) must be refused, as
//     the schema does, never decoded into title;
//   - the two surfaces take the same calls: the body is accepted on REST
//     iff it is accepted on MCP with request_id and workspace added (which
//     REST takes from the header and the path, and refuses in the body),
//     and both store the same ticket.
//
// Mutation check: with validateTitle (internal/board/validate.go) starting
// with `if v == "" { return nil }`, `go test -run FuzzCreateTicketBody
// ./internal/rest` fails on the seed {"title":""} ("title of 0 characters
// stored").
func FuzzCreateTicketBody(f *testing.F) {
	for _, s := range fuzztest.CreateSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{
		`{"title":"ok","workspace":"inbox"}`,
		`{"title":"ok","request_id":"r1"}`,
		`{"title":"ok","Request_ID":"r1"}`,
		"\xff\xfe",
		"{\"title\":\"bad \xff bytes\"}",
		` {"title":"spaces around"} `,
	} {
		f.Add([]byte(s))
	}
	h := newFuzzAPI(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		key := h.nextKey()
		before := fuzztest.Tickets(t, h.store)
		status, answer := h.post(body, key)
		if status >= 500 {
			t.Fatalf("body %q: %d %s", body, status, answer)
		}
		after := fuzztest.Tickets(t, h.store)
		var created *board.TicketResult
		if status == http.StatusCreated {
			created = new(board.TicketResult)
			if err := json.Unmarshal(answer, created); err != nil {
				t.Fatalf("body %q: 201 with %s: %v", body, answer, err)
			}
			if after != before+1 {
				t.Fatalf("body %q: one ticket created but the board went from %d to %d", body, before, after)
			}
			args, ok := fuzztest.Object(body)
			if !ok {
				t.Fatalf("body %q is not one JSON object, yet accepted: %s", body, answer)
			}
			if _, ok := args["workspace"]; ok {
				t.Fatalf("body %q names the workspace, which is the path's, yet accepted", body)
			}
			args["workspace"] = "inbox"
			if err := fuzztest.CheckCreated(fuzztest.Stored(t, h.svc, created.Ticket.ID), args, fuzzCaller.Author); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
		} else {
			var p rest.Problem
			if status < 400 || json.Unmarshal(answer, &p) != nil || p.Status != status {
				t.Fatalf("body %q refused with %d %s, not a problem", body, status, answer)
			}
			if after != before {
				t.Fatalf("body %q refused (%d %s) but the board went from %d to %d tickets", body, status, answer, before, after)
			}
			if !fuzztest.Unknown(t, h.svc, fuzzCaller, key) {
				t.Fatalf("body %q refused (%d %s) but find_request knows its key", body, status, answer)
			}
		}

		// The same call on MCP. Only JSON can be compared: other text
		// spliced into the JSON-RPC envelope may close it and make
		// another request.
		if !json.Valid(body) {
			return
		}
		if m, ok := fuzztest.Object(body); ok {
			if _, ok := m["request_id"]; ok {
				return // REST refuses it in the body; MCP takes it
			}
			if _, ok := m["workspace"]; ok {
				return
			}
		}
		mcpID := h.nextKey()
		args := fuzztest.Prepend(body, `"request_id":"`+mcpID+`","workspace":"inbox"`)
		res, err := fuzztest.ReadTicketResult(fuzztest.CallTool(h.handler, "create_ticket", args))
		if err != nil {
			t.Fatalf("arguments %q: %v", args, err)
		}
		switch {
		case (res != nil) != (created != nil):
			t.Fatalf("body %q: REST answered %d %s, MCP (arguments %q) accepted: %v", body, status, answer, args, res != nil)
		case res == nil:
			if !fuzztest.Unknown(t, h.svc, fuzzCaller, mcpID) {
				t.Fatalf("arguments %q refused but find_request knows their request_id", args)
			}
		default:
			a, b := fuzztest.Stored(t, h.svc, created.Ticket.ID), fuzztest.Stored(t, h.svc, res.Ticket.ID)
			if a.Title != b.Title || a.Body != b.Body || a.Priority != b.Priority || deref(a.Owner) != deref(b.Owner) ||
				deref(a.Due) != deref(b.Due) || !slices.Equal(a.Tags, b.Tags) || !slices.Equal(a.Links, b.Links) {
				t.Fatalf("body %q stored differently:\nREST %+v\nMCP  %+v", body, a, b)
			}
		}
	})
}

// fuzzCaller is the API's caller in loopback mode, on both surfaces.
var fuzzCaller = board.Principal{Author: "ai:fuzz"}

// fuzzAPI is the server as the composition root wires it (/api/v1 and /mcp
// behind one resolver), on one store for a whole fuzzing run, served in
// process (no socket) so that a run tries many inputs.
type fuzzAPI struct {
	handler http.Handler
	svc     *board.Service
	store   storetest.Store
	keys    atomic.Int64
}

func newFuzzAPI(tb testing.TB) *fuzzAPI {
	tb.Helper()
	st := fuzztest.OpenSQLite(tb)
	log := slog.New(slog.DiscardHandler)
	svc, err := board.NewService(board.Config{Store: st, BaseURL: "http://board.test", Logger: log})
	if err != nil {
		tb.Fatal(err)
	}
	resolver := auth.NewResolver(auth.ResolverConfig{Mode: auth.ModeLoopback, LocalAgent: fuzzCaller})
	mux := http.NewServeMux()
	server := mcpserver.NewServer(svc, mcpserver.Options{Principal: mcpserver.ContextPrincipal(), Logger: log})
	mux.Handle("/mcp", resolver.RequireAPI(board.SourceMCP, mcpserver.Deny, mcpserver.Handler(server, mcpserver.HandlerOptions{})))
	mux.Handle(rest.Prefix+"/", rest.New(rest.Config{Service: svc, Resolver: resolver}))
	return &fuzzAPI{handler: mux, svc: svc, store: st}
}

// nextKey is a key no earlier call on this store used: the fuzzing engine
// runs a target in several processes, each with its own store.
func (h *fuzzAPI) nextKey() string { return fmt.Sprintf("fuzz-%d", h.keys.Add(1)) }

// post creates a ticket in inbox with body, sent as it is.
func (h *fuzzAPI) post(body []byte, key string) (int, []byte) {
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1"+rest.Prefix+"/workspaces/inbox/tickets", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	rec := httptest.NewRecorder()
	h.handler.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

func deref(s *string) string {
	if s == nil {
		return "(none)"
	}
	return *s
}
