package dynamo_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// wireGate holds the first TransactWriteItems on its way to the endpoint
// until the caller gave up on it (its connection closed), then either
// delivers it anyway (the request was on the wire when the cancel landed:
// the endpoint applies it) or drops it (the cancel won).
type wireGate struct {
	next    http.Handler
	deliver bool

	once    sync.Once
	reached chan struct{}
	gone    chan struct{}
}

func (g *wireGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	held := false
	if strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".TransactWriteItems") {
		g.once.Do(func() { held = true })
	}
	if !held {
		g.next.ServeHTTP(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	close(g.reached)
	<-r.Context().Done() // the caller closed the connection
	if g.deliver {
		fwd := r.Clone(context.Background())
		fwd.Body = io.NopCloser(bytes.NewReader(body))
		g.next.ServeHTTP(httptest.NewRecorder(), fwd)
	}
	close(g.gone)
}

// TestCancelWithTheWriteOnTheWire: the cancel lands while the create's
// transaction is on its way to DynamoDB, where the caller can no longer
// know whether it will commit. Whether the endpoint applies it or not,
// find_request tells (checked against the table itself), and a retry with
// the same request_id converges to exactly one ticket.
func TestCancelWithTheWriteOnTheWire(t *testing.T) {
	for _, ep := range endpoints() {
		for _, deliver := range []bool{true, false} {
			name := ep.name + "/the endpoint applies it"
			if !deliver {
				name = ep.name + "/the endpoint never gets it"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				e := ep.newEndpoint(t)
				target := http.Handler(nil)
				if e.mini != nil {
					target = e.mini
				} else {
					u, err := url.Parse(e.url)
					if err != nil {
						t.Fatal(err)
					}
					target = httputil.NewSingleHostReverseProxy(u)
				}
				gate := &wireGate{next: target, deliver: deliver, reached: make(chan struct{}), gone: make(chan struct{})}
				front := httptest.NewServer(testbackends.WithCRC32(gate))
				t.Cleanup(front.Close)
				table := tableName()
				witness := openStore(t, e, nil, dynamo.Config{Table: table}) // straight to the endpoint
				gated := openStore(t, endpoint{name: e.name, url: front.URL}, nil, dynamo.Config{Table: table, SerializeWrites: e.name == "moto"})
				svc := newService(t, gated)
				in := board.CreateTicketInput{RequestID: "maybe", Workspace: "inbox", NewTicket: board.NewTicket{Title: "maybe written"}}

				ctx, cancel := context.WithCancel(aiCtx(t))
				done := make(chan error, 1)
				go func() {
					_, err := svc.CreateTicket(ctx, in)
					done <- err
				}()
				<-gate.reached
				cancel()
				err := <-done
				<-gate.gone
				if err == nil || !strings.Contains(err.Error(), "find_request") {
					t.Fatalf("cancelled call: %v, want an answer that points to find_request", err)
				}

				_, werr := witness.GetRequest(context.Background(), ledger.Key{Principal: "ai:test", RequestID: "maybe"}, time.Now())
				written := werr == nil
				if written != deliver {
					t.Fatalf("the table says written=%v (%v), want %v", written, werr, deliver)
				}
				found, err := svc.FindRequest(aiCtx(t), board.FindRequestInput{RequestID: "maybe"})
				if err != nil || (found.Status == ledger.LookupDone) != written || (!written && found.Status != ledger.LookupUnknown) {
					t.Fatalf("find_request: %+v %v; the table says written=%v", found, err, written)
				}
				retry := mustCreate(t, svc, "maybe", "maybe written")
				if retry.Ticket.ID != "inbox-1" || retry.Replayed != written {
					t.Fatalf("retry: %s replayed=%v, want inbox-1 replayed=%v", retry.Ticket.ID, retry.Replayed, written)
				}
				if ids := ticketIDs(t, newService(t, witness)); !slices.Equal(ids, []string{"inbox-1"}) {
					t.Fatalf("tickets after the retry: %v, want exactly [inbox-1]", ids)
				}
			})
		}
	}
}
