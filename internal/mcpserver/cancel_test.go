package mcpserver_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// gatedStore holds the first CreateTicket at one point so a test can cancel
// the client's request exactly there: during the work (before the commit)
// or after the commit, before the response.
type gatedStore struct {
	board.Store
	armed       atomic.Bool // only the first call is held
	afterCommit bool
	reached     chan struct{} // closed when the call reaches the gate
	cancelled   chan struct{} // closed when the handler saw its context end
}

func newGate(afterCommit bool) *gatedStore {
	g := &gatedStore{afterCommit: afterCommit, reached: make(chan struct{}), cancelled: make(chan struct{})}
	g.armed.Store(true)
	return g
}

func (g *gatedStore) CreateTicket(ctx context.Context, tx board.CreateTx) (ledger.Record, error) {
	if !g.armed.CompareAndSwap(true, false) {
		return g.Store.CreateTicket(ctx, tx)
	}
	var rec ledger.Record
	var err error
	if g.afterCommit {
		rec, err = g.Store.CreateTicket(ctx, tx)
	}
	close(g.reached)
	<-ctx.Done() // the client closes the request; with 2026-07-28 that cancels us
	close(g.cancelled)
	if !g.afterCommit {
		rec, err = g.Store.CreateTicket(ctx, tx) // a cancelled context must write nothing
	}
	return rec, err
}

// TestCancellation is the cancellation harness (docs/architecture.md,
// "Cancellation") on 2026-07-28, where closing the request cancels the
// handler. Each case cancels at one point, then an independent witness (the
// backend's own records, read outside MCP) and find_request give the
// verdict, and a retry with the same request_id must converge to exactly
// one ticket. Gates, not sleeps, place each cancel. The moment a write is
// already the store's (handed to the SQLite committer, or on the wire to
// DynamoDB) is placed by hooks inside the stores:
// TestCancelAtTheAmbiguousMoment (internal/sqlite) and
// TestCancelWithTheWriteOnTheWire (internal/dynamo).
func TestCancellation(t *testing.T) {
	type outcome struct {
		written  bool // the ticket and its record exist
		answered bool // the client got the result
	}
	cases := []struct {
		name string
		gate *gatedStore // nil: no gate
		// cancel runs the call and cancels it at its point; it reports
		// whether the client got an answer.
		cancel func(t *testing.T, call func(context.Context) error, gate *gatedStore) bool
		want   outcome
	}{
		{"baseline, no cancel", nil, func(t *testing.T, call func(context.Context) error, _ *gatedStore) bool {
			return call(t.Context()) == nil
		}, outcome{written: true, answered: true}},
		{"cancel before the work starts", nil, func(t *testing.T, call func(context.Context) error, _ *gatedStore) bool {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			if err := call(ctx); !errors.Is(err, context.Canceled) {
				t.Fatalf("call: %v, want context.Canceled", err)
			}
			return false
		}, outcome{}},
		{"cancel during the work, before the commit", newGate(false), cancelAtGate, outcome{}},
		{"cancel after the commit, before the response", newGate(true), cancelAtGate, outcome{written: true}},
		{"cancel after the response settled", nil, func(t *testing.T, call func(context.Context) error, _ *gatedStore) bool {
			ctx, cancel := context.WithCancel(t.Context())
			err := call(ctx)
			cancel()
			return err == nil
		}, outcome{written: true, answered: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := envOptions{}
			if c.gate != nil {
				opts.wrap = func(s board.Store) board.Store { c.gate.Store = s; return c.gate }
			}
			e := newEnv(t, opts)
			cs := connect(t, e.URL, modernVersion, nil)
			args := map[string]any{"request_id": "cancel-1", "workspace": "inbox", "title": "Maybe"}
			call := func(ctx context.Context) error {
				res, err := cs.CallTool(ctx, toolParams("create_ticket", args))
				if err == nil && res.IsError {
					t.Fatalf("tool error: %s", errorText(res))
				}
				return err
			}
			answered := c.cancel(t, call, c.gate)

			rows := e.Witness(t)
			written := rows["tickets"] == 1 && rows["requests"] == 1 && rows["events"] == 1
			if !written && (rows["tickets"] != 0 || rows["requests"] != 0 || rows["events"] != 0) {
				t.Fatalf("half a write: %v", rows)
			}
			found := call2[board.RequestLookup](t, e, "find_request", map[string]any{"request_id": "cancel-1"})
			if (found.Status == "done") != written {
				t.Fatalf("find_request says %s, the witness says written=%v", found.Status, written)
			}
			got := outcome{written: written, answered: answered}
			t.Logf("verdict: written=%v answered=%v find_request=%s", got.written, got.answered, found.Status)
			if got != c.want {
				t.Fatalf("outcome %+v, want %+v", got, c.want)
			}

			// Whatever happened, the same request_id converges to one ticket.
			retry := call2[board.TicketResult](t, e, "create_ticket", args)
			if retry.Ticket.ID != "inbox-1" || retry.Replayed != written {
				t.Fatalf("retry = %s replayed=%v, want inbox-1 replayed=%v", retry.Ticket.ID, retry.Replayed, written)
			}
			if rows := e.Witness(t); rows["tickets"] != 1 || rows["requests"] != 1 {
				t.Fatalf("after the retry: %v, want one ticket and one record", rows)
			}
		})
	}
}

// cancelAtGate starts the call, waits until the store reaches the gate,
// cancels, and waits until the handler itself saw the cancellation.
func cancelAtGate(t *testing.T, call func(context.Context) error, gate *gatedStore) bool {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- call(ctx) }()
	<-gate.reached
	cancel()
	<-gate.cancelled
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("client call ended with %v, want context.Canceled", err)
	}
	return false
}

// call2 calls a tool on a fresh connection, as a client reconnecting would.
func call2[T any](t *testing.T, e *env, tool string, args any) T {
	t.Helper()
	return call[T](t, connect(t, e.URL, modernVersion, nil), tool, args)
}
