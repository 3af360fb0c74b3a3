package mcpserver_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// onStoresAndRevisions is onEachStoreAndRevision with a client connected
// at the revision.
func onStoresAndRevisions(t *testing.T, fn func(t *testing.T, e *env, cs *mcp.ClientSession)) {
	t.Helper()
	onEachStoreAndRevision(t, func(t *testing.T, e *env, version string) {
		fn(t, e, connect(t, e.URL, version, nil))
	})
}

// readText reads a resource that must exist and returns its one text.
func readText(t *testing.T, cs *mcp.ClientSession, uri string) string {
	t.Helper()
	res, err := readResource(cs, uri)
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	if len(res.Contents) != 1 || res.Contents[0].URI != uri || res.Contents[0].MIMEType != "text/markdown" {
		t.Fatalf("read %s: contents %+v, want one text/markdown content of that uri", uri, res.Contents)
	}
	return res.Contents[0].Text
}

func readResource(cs *mcp.ClientSession, uri string) (*mcp.ReadResourceResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callBound)
	defer cancel()
	return cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
}

// rpcErr is the JSON-RPC error a call must have failed with.
func rpcErr(t *testing.T, what string, err error) *jsonrpc.Error {
	t.Helper()
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: error %v (%T), want a JSON-RPC error", what, err, err)
	}
	return e
}

// seed writes as a caller outside MCP (a person, or the test's agent).
type seed struct {
	t   *testing.T
	svc *board.Service
	ctx context.Context
	n   int
}

func seedAs(t *testing.T, e *env, ctx context.Context) *seed {
	return &seed{t: t, svc: e.Svc, ctx: ctx}
}

func (s *seed) rid() string { s.n++; return fmt.Sprintf("seed-%d", s.n) }

func (s *seed) create(in board.CreateTicketInput) board.Ticket {
	s.t.Helper()
	in.RequestID = s.rid()
	r, err := s.svc.CreateTicket(s.ctx, in)
	if err != nil {
		s.t.Fatal(err)
	}
	return r.Ticket
}

func (s *seed) note(id, body string) {
	s.t.Helper()
	if _, err := s.svc.AddNote(s.ctx, board.AddNoteInput{RequestID: s.rid(), ID: id, Body: body}); err != nil {
		s.t.Fatal(err)
	}
}

func (s *seed) move(id string, to board.Status, reason string) {
	s.t.Helper()
	if _, err := s.svc.MoveTicket(s.ctx, board.MoveTicketInput{RequestID: s.rid(), ID: id, Status: to, Reason: reason}); err != nil {
		s.t.Fatal(err)
	}
}

// sameShape compares two refusals that name different things: equal once
// each one's subject is replaced by X.
func sameShape(a, subjectA, b, subjectB string) bool {
	return strings.ReplaceAll(a, subjectA, "X") == strings.ReplaceAll(b, subjectB, "X")
}
