package mcpserver_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/fuzztest"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
)

// FuzzCreateTicketArguments sends arbitrary create_ticket arguments through
// the whole /mcp handler (UTF-8 and JSON-RPC checks, the go-sdk, the tool's
// schema validation and decoding, the service) to a SQLite store, as a
// client's tools/call would, and holds every answer to:
//   - never an HTTP 5xx, a JSON-RPC internal error or an internal tool
//     error, whatever the arguments;
//   - a refusal writes nothing: no ticket, and find_request does not know
//     the request_id;
//   - an acceptance stored exactly what the arguments say, read as plain
//     JSON by their exact names (internal/fuzztest), within the board's
//     limits; so a key in another case ({"Title":...}) must be refused, as
//     the schema does, never decoded into title.
//
// The harness puts a new request_id at the front of each call's arguments,
// so a call is new unless the fuzzed text names its own (then it may be a
// replay, which stores nothing new).
//
// Mutation check: with validateTitle (internal/board/validate.go) starting
// with `if v == "" { return nil }`, `go test -run FuzzCreateTicketArguments
// ./internal/mcpserver` fails on the seed {"workspace":"inbox","title":""}
// ("title of 0 characters stored"); with decodeArguments (tools.go) skipping
// schema.Validate, it fails on {"workspace":"inbox","Title":"Case variant"}
// ("accepted the unknown key \"Title\"").
func FuzzCreateTicketArguments(f *testing.F) {
	for _, s := range fuzztest.CreateSeeds {
		f.Add([]byte(fuzztest.Prepend([]byte(s), `"workspace":"inbox"`)))
	}
	for _, s := range []string{
		`{"title":"no workspace"}`,
		`{"workspace":"In-box","title":"bad slug"}`,
		`{"workspace":"nowhere","title":"no such workspace"}`,
		`{"Workspace":"inbox","title":"case variant"}`,
		`{"workspace":"inbox","title":"own id","request_id":"fuzz-own"}`,
		`{"workspace":"inbox","title":"empty id","request_id":""}`,
		`{"workspace":"inbox","title":"ok","author":"human"}`,
	} {
		f.Add([]byte(s))
	}
	h := newFuzzServer(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		requestID := h.nextID()
		args := fuzztest.Prepend(data, `"request_id":"`+requestID+`"`)
		before := fuzztest.Tickets(t, h.store)
		status, answer := fuzztest.CallTool(h.handler, "create_ticket", args)
		res, err := fuzztest.ReadTicketResult(status, answer)
		if err != nil {
			t.Fatalf("arguments %q: %v", args, err)
		}
		after := fuzztest.Tickets(t, h.store)
		if res == nil {
			if after != before {
				t.Fatalf("arguments %q refused (%s) but the board went from %d to %d tickets", args, answer, before, after)
			}
			if !fuzztest.Unknown(t, h.svc, fuzzAgent, requestID) {
				t.Fatalf("arguments %q refused (%s) but find_request knows %s", args, answer, requestID)
			}
			return
		}
		if want := before + 1; !res.Replayed && after != want {
			t.Fatalf("arguments %q: one ticket created but the board went from %d to %d", args, before, after)
		}
		if res.Replayed && after != before {
			t.Fatalf("arguments %q: a replay, but the board went from %d to %d tickets", args, before, after)
		}
		sent, ok := fuzztest.Object(args)
		if !ok {
			t.Fatalf("arguments %q are not one JSON object, yet accepted: %s", args, answer)
		}
		if err := fuzztest.CheckCreated(fuzztest.Stored(t, h.svc, res.Ticket.ID), sent, fuzzAgent.Author); err != nil {
			t.Fatalf("arguments %q: %v", args, err)
		}
	})
}

var fuzzAgent = board.Principal{Author: "ai:fuzz", Source: board.SourceMCP}

// fuzzServer is one /mcp handler on one store for a whole fuzzing run:
// each call is served in process (no socket), so a run tries many inputs.
type fuzzServer struct {
	handler http.Handler
	svc     *board.Service
	store   board.Store
	ids     atomic.Int64
}

func newFuzzServer(tb testing.TB) *fuzzServer {
	tb.Helper()
	st := fuzztest.OpenSQLite(tb)
	svc, err := board.NewService(board.Config{Store: st, BaseURL: "http://board.test", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		tb.Fatal(err)
	}
	server := mcpserver.NewServer(svc, mcpserver.Options{Principal: mcpserver.StaticPrincipal(fuzzAgent), Logger: slog.New(slog.DiscardHandler)})
	return &fuzzServer{handler: mcpserver.Handler(server, mcpserver.HandlerOptions{}), svc: svc, store: st}
}

// nextID is a request_id no earlier call on this store used: the fuzzing
// engine runs a target in several processes, each with its own store.
func (h *fuzzServer) nextID() string { return fmt.Sprintf("fuzz-%d", h.ids.Add(1)) }

// FuzzUpdateTicketArguments sends arbitrary update_ticket arguments for
// the board's one ticket through the whole /mcp handler, as
// FuzzCreateTicketArguments does for create_ticket, and holds every answer
// to: never an internal error; a refusal leaves the ticket as it was and
// the ledger without the request_id; an acceptance changed exactly the
// fields given (null clearing body, owner, due, tags and links, refused for
// title and priority, status never), within the board's limits, and a key
// in another case is refused. The harness puts a new request_id and the
// ticket's id at the front; fuzzed text may name others.
//
// Mutation check: with UpdateTicketInput.UnmarshalJSON
// (internal/board/inputs.go) no longer noting nulls, `go test -run
// FuzzUpdateTicketArguments ./internal/mcpserver` fails on
// {"title":null,"body":"with another field"} ("accepted title null").
func FuzzUpdateTicketArguments(f *testing.F) {
	for _, s := range []string{
		`{"title":"New title"}`,
		`{"body":"new **body**","priority":"high","owner":"human:ana","due":"2027-01-31"}`,
		`{"tags":["x","y.z"],"links":[{"kind":"task","ref":"t9"}]}`,
		`{"body":null,"owner":null,"due":null,"tags":null,"links":null}`,
		`{"tags":[],"links":[]}`,
		`{"owner":""}`,
		`{"due":""}`,
		`{"title":null}`,
		`{"priority":null}`,
		`{"title":null,"body":"with another field"}`,
		`{"priority":null,"due":"2027-01-01"}`,
		`{"title":""}`,
		`{"title":"two\nlines"}`,
		`{"status":"done"}`,
		`{"status":null}`,
		`{}`,
		`{"Title":"Case variant"}`,
		`{"title":"ok","Body":"case variant"}`,
		`{"TAGS":["a"]}`,
		`{"links":[{"kind":"url","ref":"https://x.test","Title":"case"}]}`,
		`{"id":"inbox-01","title":"leading zero"}`,
		`{"id":"inbox-2","title":"no such ticket"}`,
		`{"id":"inbox","title":"not an id"}`,
		`{"title":"ok","request_id":"fuzz-own"}`,
		`{"title":"ok","tags":["a","a"]}`,
		`{"title":"ok","priority":"asap"}`,
		`{"title":"first","title":"second"}`,
		`[]`, `null`, `{"title":"ok"`,
	} {
		f.Add([]byte(s))
	}
	h := newFuzzServer(f)
	created, err := h.svc.CreateTicket(board.WithPrincipal(context.Background(), fuzzAgent), board.CreateTicketInput{
		RequestID: "fuzz-setup",
		Workspace: "inbox",
		NewTicket: board.NewTicket{
			Title:    "The ticket",
			Body:     "text",
			Priority: board.PriorityLow,
			Owner:    "ai:fuzz",
			Due:      "2026-12-24",
			Tags:     []string{"a"},
			Links:    []board.Link{{Kind: "url", Ref: "https://x.test/1", Title: "one"}},
		},
	})
	if err != nil {
		f.Fatal(err)
	}
	id := created.Ticket.ID
	f.Fuzz(func(t *testing.T, data []byte) {
		requestID := h.nextID()
		args := fuzztest.Prepend(data, `"request_id":"`+requestID+`","id":"`+id+`"`)
		before := fuzztest.Stored(t, h.svc, id)
		res, err := fuzztest.ReadTicketResult(fuzztest.CallTool(h.handler, "update_ticket", args))
		if err != nil {
			t.Fatalf("arguments %q: %v", args, err)
		}
		after := fuzztest.Stored(t, h.svc, id)
		if n := fuzztest.Tickets(t, h.store); n != 1 {
			t.Fatalf("arguments %q: the board has %d tickets, want its one", args, n)
		}
		if res == nil || res.Replayed {
			if !reflect.DeepEqual(before, after) {
				t.Fatalf("arguments %q refused or replayed, but the ticket changed:\n%+v\n%+v", args, before, after)
			}
			if res == nil && !fuzztest.Unknown(t, h.svc, fuzzAgent, requestID) {
				t.Fatalf("arguments %q refused but find_request knows %s", args, requestID)
			}
			return
		}
		if res.Ticket.ID != id {
			t.Fatalf("arguments %q updated %s, the board has only %s", args, res.Ticket.ID, id)
		}
		sent, ok := fuzztest.Object(args)
		if !ok {
			t.Fatalf("arguments %q are not one JSON object, yet accepted", args)
		}
		if err := fuzztest.CheckUpdated(before, after, sent); err != nil {
			t.Fatalf("arguments %q: %v", args, err)
		}
	})
}
