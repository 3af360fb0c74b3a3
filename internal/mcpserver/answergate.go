package mcpserver

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/semaphore"
)

// Memory stays bounded however many clients read at once. A gate holds the
// bytes of answers in the making: a read takes the most an answer may be
// (board.MaxAnswerBytes) before it reads the store, keeps what its answer
// turned out to cost once encoded, and gives that back when the response
// is written; a write, whose answer its own request bounds, takes its
// answer's cost once encoded. Beyond the gate's size callers wait their
// turn (or give up when they cancel) instead of adding their reads and
// answers to memory. DefaultAnswerBytesInFlight lets 8 of the largest
// reads run at once: more than two cores can encode anyway, and little
// enough that 32 clients reading the largest tickets stay within 150 MB
// (bench/cmd/memory). A slow reader of a response keeps its share until
// the response is written.

// DefaultAnswerBytesInFlight is HandlerOptions.AnswerBytesInFlight's default.
const DefaultAnswerBytesInFlight = 8 << 20

// answerGate is shared by the requests of one handler.
type answerGate struct {
	sem  *semaphore.Weighted
	size int64
	// inFlight and peak are what the gate held, for tests.
	inFlight, peak atomic.Int64
}

func newAnswerGate(size int64) *answerGate {
	if size <= 0 {
		size = DefaultAnswerBytesInFlight
	}
	return &answerGate{sem: semaphore.NewWeighted(size), size: size}
}

// gateHold is what one HTTP request took from the gate.
type gateHold struct {
	gate *answerGate
	mu   sync.Mutex
	n    int64
}

type gateKey struct{}

// wrap gives every request a hold on the gate and returns what it took
// once the response is written.
func (g *answerGate) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := &gateHold{gate: g}
		defer h.release()
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), gateKey{}, h)))
	})
}

// holdAnswer takes n bytes of the request's gate for an answer about to be
// sent, waiting for room; without a gate (a server used without Handler) it
// takes nothing.
func holdAnswer(ctx context.Context, n int64) error {
	h, _ := ctx.Value(gateKey{}).(*gateHold)
	if h == nil {
		return nil
	}
	n = min(n, h.gate.size)
	if err := h.gate.sem.Acquire(ctx, n); err != nil {
		return err
	}
	h.mu.Lock()
	h.n += n
	h.mu.Unlock()
	now := h.gate.inFlight.Add(n)
	for peak := h.gate.peak.Load(); now > peak && !h.gate.peak.CompareAndSwap(peak, now); peak = h.gate.peak.Load() {
	}
	return nil
}

// settleAnswer gives back what the request holds beyond n: a read that
// took the most an answer may be keeps what its answer costs.
func settleAnswer(ctx context.Context, n int64) {
	h, _ := ctx.Value(gateKey{}).(*gateHold)
	if h == nil {
		return
	}
	h.mu.Lock()
	extra := h.n - max(n, 0)
	if extra > 0 {
		h.n -= extra
	}
	h.mu.Unlock()
	if extra > 0 {
		h.gate.inFlight.Add(-extra)
		h.gate.sem.Release(extra)
	}
}

func (h *gateHold) release() {
	h.mu.Lock()
	n := h.n
	h.n = 0
	h.mu.Unlock()
	if n > 0 {
		h.gate.inFlight.Add(-n)
		h.gate.sem.Release(n)
	}
}
