package mcpserver_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// The cancellation harness: five cases, each cancelling one create_ticket
// call at one point, on 2026-07-28 where closing the request cancels the
// handler. Gates, not sleeps, place each cancel; every wait on a gate is
// bounded and reports what it waited for when the bound passes. Each case
// runs cancelRuns times and the runs must agree; a run whose gates fired
// out of order says so. The verdict comes from an independent witness (the
// backend's own records, read outside MCP) and find_request, and a retry
// with the same request_id must converge to exactly one ticket.
//
// The moment a write is already the store's (handed to the SQLite
// committer, or on the wire to DynamoDB) is placed by hooks inside the
// stores: TestCancelAtTheAmbiguousMoment (internal/sqlite) and
// TestCancelWithTheWriteOnTheWire (internal/dynamo).

const (
	// cancelRuns is how many times each case runs; all must agree.
	cancelRuns = 5
	// gateBound bounds every wait on a gate: a deadline, never a pause.
	gateBound = 10 * time.Second
)

// Outcomes of one run besides a verdict.
const (
	outcomeOK                = "ok"
	outcomeCancelNotObserved = "cancel_not_observed" // the handler never saw its context end
	outcomeInvalidPhase      = "invalid_phase"       // a gate fired out of order
	outcomeRequireEvent      = "require_event"       // a gate the case needs never fired
)

// Phases the gates record, in the order a call passes them.
const (
	phaseHandler   = "handler"     // the request reached the server's handler
	phaseStore     = "store"       // the use case reached the store's commit
	phaseCommitted = "committed"   // the store committed
	phaseCancelled = "cancel-seen" // the server saw the request's context end
)

// gates hold one create_ticket call at one phase, record the phases it
// passed, and report whether the server saw the cancellation.
type gates struct {
	holdAt string // the phase to hold at ("": none)

	mu     sync.Mutex
	phases []string
	moved  chan struct{} // a phase was recorded (buffered, one slot)

	held      chan struct{} // closed when the call is held
	cancelled chan struct{} // closed when the held call saw its context end
	armed     atomic.Bool   // only the first matching call is held
}

func newGates(holdAt string) *gates {
	g := &gates{holdAt: holdAt, held: make(chan struct{}), cancelled: make(chan struct{}), moved: make(chan struct{}, 1)}
	g.armed.Store(holdAt != "")
	return g
}

func (g *gates) record(phase string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.phases = append(g.phases, phase)
	select {
	case g.moved <- struct{}{}:
	default:
	}
}

// awaitPhases waits, bounded, until n phases are recorded.
func (g *gates) awaitPhases(n int) {
	deadline := time.NewTimer(gateBound)
	defer deadline.Stop()
	for len(g.recorded()) < n {
		select {
		case <-g.moved:
		case <-deadline.C:
			return
		}
	}
}

func (g *gates) recorded() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.phases)
}

// hold holds the call at phase if this is the phase to hold at: it signals
// held and waits, bounded, for ctx to end.
func (g *gates) hold(ctx context.Context, phase string) {
	if phase != g.holdAt || !g.armed.CompareAndSwap(true, false) {
		return
	}
	close(g.held)
	select {
	case <-ctx.Done():
		g.record(phaseCancelled)
		close(g.cancelled)
	case <-time.After(gateBound):
		// The run reports cancel_not_observed: cancelled stays open.
	}
}

// handler gates the HTTP handler: a tools/call reaching the server, before
// any of its work.
func (g *gates) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"tools/call"`)) {
			g.record(phaseHandler)
			g.hold(r.Context(), phaseHandler)
		}
		next.ServeHTTP(w, r)
	})
}

// gatedStore gates CreateTicket: before the commit, or after it.
type gatedStore struct {
	board.Store
	g *gates
}

func (s *gatedStore) CreateTicket(ctx context.Context, tx board.CreateTx) (ledger.Record, error) {
	s.g.record(phaseStore)
	s.g.hold(ctx, phaseStore)
	rec, err := s.Store.CreateTicket(ctx, tx) // a cancelled context must write nothing
	if err == nil {
		s.g.record(phaseCommitted)
		s.g.hold(ctx, phaseCommitted)
	}
	return rec, err
}

// cancelCase is one point of cancellation and what must follow from it.
type cancelCase struct {
	name   string
	holdAt string   // the gate that holds the call ("": none)
	phases []string // the phases the run must pass, in order
	// cancelAfter: cancel once the call returned (the answer settled).
	cancelAfter bool
	written     bool // the ticket and its record exist afterwards
	answered    bool // the client got the result
}

var cancelCases = []cancelCase{
	{name: "baseline, no cancel", phases: []string{phaseHandler, phaseStore, phaseCommitted}, written: true, answered: true},
	{name: "cancel after the handler started, before the first write", holdAt: phaseHandler,
		phases: []string{phaseHandler, phaseCancelled}},
	{name: "cancel during the work, before the commit", holdAt: phaseStore,
		phases: []string{phaseHandler, phaseStore, phaseCancelled}},
	{name: "cancel after the commit, before the response", holdAt: phaseCommitted,
		phases: []string{phaseHandler, phaseStore, phaseCommitted, phaseCancelled}, written: true},
	{name: "cancel after the response settled", cancelAfter: true,
		phases: []string{phaseHandler, phaseStore, phaseCommitted}, written: true, answered: true},
}

// runResult is one run's outcome and verdict.
type runResult struct {
	outcome  string
	detail   string
	written  bool
	answered bool
}

func TestCancellation(t *testing.T) {
	sdk := moduleVersion("github.com/modelcontextprotocol/go-sdk")
	testbackends.Each(t, func(t *testing.T, backend string) {
		for ci, c := range cancelCases {
			t.Run(c.name, func(t *testing.T) {
				var results []runResult
				for run := range cancelRuns {
					r := runCancelCase(t, c, backend)
					// One line per run: what ran, on what, and how it ended.
					t.Logf("case=%d run=%d revision=%s transport=streamable-http server=go-sdk@%s client=go-sdk@%s outcome=%s written=%v answered=%v %s",
						ci+1, run+1, modernVersion, sdk, sdk, r.outcome, r.written, r.answered, r.detail)
					results = append(results, r)
				}
				for i, r := range results {
					if r.outcome != outcomeOK {
						t.Errorf("run %d: %s (%s)", i+1, r.outcome, r.detail)
					}
					if r.written != c.written || r.answered != c.answered {
						t.Errorf("run %d: written=%v answered=%v, want written=%v answered=%v", i+1, r.written, r.answered, c.written, c.answered)
					}
					if r.written != results[0].written || r.answered != results[0].answered {
						t.Errorf("runs disagree: run 1 written=%v answered=%v, run %d written=%v answered=%v (a race)",
							results[0].written, results[0].answered, i+1, r.written, r.answered)
					}
				}
			})
		}
	})
}

// runCancelCase runs c once on a fresh server and store on backend.
func runCancelCase(t *testing.T, c cancelCase, backend string) runResult {
	t.Helper()
	g := newGates(c.holdAt)
	e := newEnv(t, envOptions{
		backend:     backend,
		wrap:        func(s board.Store) board.Store { return &gatedStore{Store: s, g: g} },
		wrapHandler: g.handler,
	})
	cs := connect(t, e.URL, modernVersion, nil)
	args := map[string]any{"request_id": "cancel-1", "workspace": "inbox", "title": "Maybe"}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		res, err := cs.CallTool(ctx, toolParams("create_ticket", args))
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error: %s", errorText(res))
		}
		done <- err
	}()

	var r runResult
	var callErr error
	if c.holdAt != "" {
		select {
		case <-g.held:
		case callErr = <-done:
			return runResult{outcome: outcomeRequireEvent, detail: fmt.Sprintf("the call ended (%v) without reaching gate %q; phases %v", callErr, c.holdAt, g.recorded())}
		case <-time.After(callBound):
			// Reaching a gate is the call's own progress (a first create on
			// moto under a loaded CI run took more than 10 s to commit), so
			// it has the call's bound, not a gate's.
			return runResult{outcome: outcomeRequireEvent, detail: fmt.Sprintf("gate %q not reached within %s; phases %v", c.holdAt, callBound, g.recorded())}
		}
		cancel()
		select {
		case <-g.cancelled:
		case <-time.After(gateBound + time.Second):
			return runResult{outcome: outcomeCancelNotObserved, detail: fmt.Sprintf("the handler held at %q never saw its context end; phases %v", c.holdAt, g.recorded())}
		}
	}
	select {
	case callErr = <-done:
	case <-time.After(callBound):
		return runResult{outcome: outcomeRequireEvent, detail: fmt.Sprintf("the call did not end within %s; phases %v", callBound, g.recorded())}
	}
	if c.cancelAfter {
		cancel()
	}
	switch {
	case callErr == nil:
		r.answered = true
	case c.holdAt != "" && errors.Is(callErr, context.Canceled):
	default:
		return runResult{outcome: outcomeRequireEvent, detail: fmt.Sprintf("the call ended with %v", callErr)}
	}

	// The store's work may still be finishing after the client gave up:
	// wait, bounded, until the case's last phase is recorded.
	g.awaitPhases(len(c.phases))
	if got := g.recorded(); !slices.Equal(got, c.phases) {
		return runResult{outcome: outcomeInvalidPhase, detail: fmt.Sprintf("phases %v, want %v", got, c.phases)}
	}

	rows := e.Witness(t)
	r.written = rows["tickets"] == 1 && rows["requests"] == 1 && rows["events"] == 1
	if !r.written && (rows["tickets"] != 0 || rows["requests"] != 0 || rows["events"] != 0) {
		t.Fatalf("half a write: %v", rows)
	}
	found := call2[board.RequestLookup](t, e, "find_request", map[string]any{"request_id": "cancel-1"})
	if (found.Status == "done") != r.written {
		t.Fatalf("find_request says %s, the witness says written=%v", found.Status, r.written)
	}
	// Whatever happened, the same request_id converges to one ticket.
	retry := call2[board.TicketResult](t, e, "create_ticket", args)
	if retry.Ticket.ID != "inbox-1" || retry.Replayed != r.written {
		t.Fatalf("retry = %s replayed=%v, want inbox-1 replayed=%v", retry.Ticket.ID, retry.Replayed, r.written)
	}
	if rows := e.Witness(t); rows["tickets"] != 1 || rows["requests"] != 1 {
		t.Fatalf("after the retry: %v, want one ticket and one record", rows)
	}
	r.outcome = outcomeOK
	r.detail = "find_request=" + string(found.Status)
	return r
}

// call2 calls a tool on a fresh connection, as a client reconnecting would.
func call2[T any](t *testing.T, e *env, tool string, args any) T {
	t.Helper()
	return call[T](t, connect(t, e.URL, modernVersion, nil), tool, args)
}

// moduleVersion is the version of a module the project requires, from
// go.mod (a test binary's build info does not carry its dependencies'
// versions), for the log.
func moduleVersion(path string) string {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(mod), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == path {
			return f[1]
		}
	}
	return "unknown"
}
