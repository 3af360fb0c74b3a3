package main

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/tasks"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// idleTasks is a task service with nothing to run.
type idleTasks struct{}

func (idleTasks) RunImport(context.Context, string, int) (board.Task, error) {
	return board.Task{}, nil
}
func (idleTasks) FailTask(context.Context, string, string) (board.Task, error) {
	return board.Task{}, nil
}
func (idleTasks) UnfinishedTasks(context.Context) ([]board.Task, error) { return nil, nil }

// Locally /healthz also says whether the task runner runs: "running" while
// it does, "stopped" and 503 once it no longer starts imports.
func TestHealthzReportsTheTaskRunner(t *testing.T) {
	runner := tasks.NewLocal(idleTasks{}, nil)
	clock := testbackends.NewClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	h := newHealth(&pinger{}, slog.New(slog.DiscardHandler)).withTasks(runner)
	h.now = clock.Now
	get := func() (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
		return rec.Code, rec.Body.String()
	}
	if code, body := get(); code != http.StatusOK || body != `{"status":"ok","store":"ok","tasks":"running"}` {
		t.Fatalf("running: %d %s", code, body)
	}
	runner.Close()
	clock.Add(healthTTL)
	if code, body := get(); code != http.StatusServiceUnavailable || body != `{"status":"unavailable","store":"ok","tasks":"stopped"}` {
		t.Fatalf("stopped: %d %s", code, body)
	}
}
