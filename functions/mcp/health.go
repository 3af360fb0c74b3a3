package main

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// healthPath is the health check's path, the one route a team server
// answers on any Host (routes.go).
const healthPath = "/healthz"

// How /healthz checks the store: one small read (board.Pinger) bounded by
// healthTimeout, and the answer kept for healthTTL, since the route is
// public and a flood of checks must not become a flood of reads.
const (
	healthTimeout = 2 * time.Second
	healthTTL     = 2 * time.Second
)

// health answers GET /healthz: 200 {"status":"ok","store":"ok"} when the
// store answers (locally with "tasks":"running" while the task runner
// runs), 503 {"status":"unavailable","store":"unavailable",
// "error_id":…} when it does not. No cause is shown; the log line has it
// under the error id.
type health struct {
	store board.Pinger
	tasks taskRunnerState // nil: no local runner (Lambda, tests)
	log   *slog.Logger
	now   func() time.Time

	mu      sync.Mutex
	checked time.Time
	status  int
	body    []byte
}

func newHealth(store board.Pinger, log *slog.Logger) *health {
	return &health{store: store, log: log, now: time.Now}
}

// taskRunnerState is what /healthz asks the local task runner.
type taskRunnerState interface {
	Stopped() bool
}

// withTasks adds the local task runner's state to the answer: "tasks":
// "running", or "stopped" (and 503) once it no longer starts imports.
func (h *health) withTasks(t taskRunnerState) *health {
	if t != nil {
		h.tasks = t
	}
	return h
}

func (h *health) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	status, body := h.check(r.Context())
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(body)
}

// check pings the store unless a check within healthTTL answered already.
func (h *health) check(ctx context.Context) (int, []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.checked.IsZero() && h.now().Sub(h.checked) < healthTTL {
		return h.status, h.body
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), healthTimeout)
	defer cancel()
	answer := map[string]string{"status": "ok", "store": "ok"}
	h.status = http.StatusOK
	if h.tasks != nil {
		answer["tasks"] = "running"
		if h.tasks.Stopped() {
			answer["status"], answer["tasks"] = "unavailable", "stopped"
			h.status = http.StatusServiceUnavailable
		}
	}
	if err := h.store.Ping(ctx); err != nil {
		var b [6]byte
		_, _ = crand.Read(b[:])
		id := "err-" + hex.EncodeToString(b[:])
		h.log.Warn("health check: the store does not answer", "error_id", id, "err", err)
		answer["status"], answer["store"], answer["error_id"] = "unavailable", "unavailable", id
		h.status = http.StatusServiceUnavailable
	}
	h.body, _ = json.Marshal(answer)
	h.checked = h.now()
	return h.status, h.body
}
