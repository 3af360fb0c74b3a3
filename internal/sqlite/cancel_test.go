package sqlite_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

// TestCancelAtTheAmbiguousMoment: the cancel lands after the write was
// handed to the committer, where the caller can no longer know whether it
// will commit. Either outcome is allowed; what is not is an outcome nobody
// can learn. find_request must tell it (checked against the store's own
// record, read outside the service), and a retry with the same request_id
// must converge to exactly one ticket.
func TestCancelAtTheAmbiguousMoment(t *testing.T) {
	for _, c := range []struct {
		name    string
		written bool
		place   func(st *sqlite.Store, reached, release chan struct{})
	}{
		{"waiting in the batch, before its work started", false, func(st *sqlite.Store, reached, release chan struct{}) {
			held := false
			sqlite.SetBatchHooks(st, func(n int) bool {
				if !held {
					held = true
					close(reached)
					<-release
				}
				return false
			}, nil, nil)
		}},
		{"after its work ran, before COMMIT", true, func(st *sqlite.Store, reached, release chan struct{}) {
			held := false
			sqlite.SetBatchHooks(st, nil, func() {
				if !held {
					held = true
					close(reached)
					<-release
				}
			}, nil)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), sqlite.FileName))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			svc := newService(t, st)
			principal := board.Principal{Author: "ai:test", Source: board.SourceMCP}
			in := board.CreateTicketInput{RequestID: "maybe", Workspace: "inbox", NewTicket: board.NewTicket{Title: "maybe written"}}

			reached, release := make(chan struct{}), make(chan struct{})
			c.place(st, reached, release)
			ctx, cancel := context.WithCancel(board.WithPrincipal(context.Background(), principal))
			done := make(chan error, 1)
			go func() {
				_, err := svc.CreateTicket(ctx, in)
				done <- err
			}()
			<-reached // the write is the committer's now
			cancel()
			close(release)
			err = <-done
			sqlite.ClearBatchHooks(st)
			t.Logf("the cancelled call answered: %v", err)
			if !c.written && (err == nil || !strings.Contains(err.Error(), "find_request")) {
				t.Fatalf("a write cancelled before its work answered %v, want the cancellation, pointing to find_request", err)
			}

			// The witness: the store's own record.
			_, werr := st.GetRequest(context.Background(), ledger.Key{Principal: principal.Author, RequestID: "maybe"}, time.Now())
			written := werr == nil
			if written != c.written {
				t.Fatalf("written = %v (%v), want %v", written, werr, c.written)
			}
			ai := board.WithPrincipal(context.Background(), principal)
			found, err := svc.FindRequest(ai, board.FindRequestInput{RequestID: "maybe"})
			if err != nil || (found.Status == ledger.LookupDone) != written || (!written && found.Status != ledger.LookupUnknown) {
				t.Fatalf("find_request: %+v %v; the store says written=%v", found, err, written)
			}
			retry, err := svc.CreateTicket(ai, in)
			if err != nil || retry.Ticket.ID != "inbox-1" || retry.Replayed != written {
				t.Fatalf("retry: %+v %v, want inbox-1 replayed=%v", retry, err, written)
			}
			page, err := st.ListTickets(context.Background(), board.TicketQuery{Workspace: "inbox", Limit: 10})
			if err != nil || len(page.Tickets) != 1 {
				t.Fatalf("tickets after the retry: %+v %v, want exactly one", page.Tickets, err)
			}
		})
	}
}
