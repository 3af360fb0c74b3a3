package mcpserver_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// gatedStore holds CreateTicket at one point so a test can cancel the
// client's request exactly there: before the commit or after it.
type gatedStore struct {
	board.Store
	armed       atomic.Bool // only the first call is held
	afterCommit bool
	reached     chan struct{} // closed when the call reaches the gate
	cancelled   chan struct{} // closed when the handler saw its context end
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

// Cancellation on 2026-07-28: closing the request cancels the handler. Before
// the commit nothing is written; after it the ticket stands and a retry with
// the same request_id returns it.
func TestCancellation(t *testing.T) {
	for _, c := range []struct {
		name        string
		afterCommit bool
	}{{"before commit", false}, {"after commit", true}} {
		t.Run(c.name, func(t *testing.T) {
			gate := &gatedStore{afterCommit: c.afterCommit, reached: make(chan struct{}), cancelled: make(chan struct{})}
			gate.armed.Store(true)
			e := newEnv(t, envOptions{wrap: func(s board.Store) board.Store { gate.Store = s; return gate }})
			cs := connect(t, e.URL, modernVersion, nil)
			args := map[string]any{"request_id": "cancel-1", "workspace": "inbox", "title": "Maybe"}

			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, toolParams("create_ticket", args))
				done <- err
			}()
			<-gate.reached
			cancel()
			<-gate.cancelled // the server's handler saw the cancellation: no sleeps, a gate
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("client call ended with %v, want context.Canceled", err)
			}

			// The witness: the database file, read outside the MCP path.
			rows := e.Witness(t)
			cs2 := connect(t, e.URL, modernVersion, nil)
			found := call[board.RequestLookup](t, cs2, "find_request", map[string]any{"request_id": "cancel-1"})
			if !c.afterCommit {
				if rows["tickets"] != 0 || rows["requests"] != 0 || rows["events"] != 0 {
					t.Fatalf("cancelled before commit but rows were written: %v", rows)
				}
				if found.Status != "unknown" {
					t.Fatalf("find_request = %+v, want unknown", found)
				}
				return
			}
			if rows["tickets"] != 1 || rows["requests"] != 1 || rows["events"] != 1 {
				t.Fatalf("committed before the cancel, want one ticket, record and event: %v", rows)
			}
			if found.Status != "done" {
				t.Fatalf("find_request = %+v, want done", found)
			}
			retry := call[board.TicketResult](t, cs2, "create_ticket", args)
			if !retry.Replayed || retry.Ticket.ID != "inbox-1" {
				t.Fatalf("retry = %+v, want the committed ticket replayed", retry)
			}
			if rows := e.Witness(t); rows["tickets"] != 1 {
				t.Fatalf("retry wrote again: %v", rows)
			}
		})
	}
}
