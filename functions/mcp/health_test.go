package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// pinger answers pings with err and counts them.
type pinger struct {
	mu    sync.Mutex
	err   error
	pings int
}

func (p *pinger) Ping(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pings++
	return p.err
}

// /healthz reports whether the store answers, as JSON without internals
// (the log has the cause under the answer's error id), and checks the
// store at most once per healthTTL however often it is asked.
func TestHealthzReportsTheStore(t *testing.T) {
	var logs bytes.Buffer
	store := &pinger{}
	clock := testbackends.NewClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	h := newHealth(store, slog.New(slog.NewTextHandler(&logs, nil)))
	h.now = clock.Now
	get := func() (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
		if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
		return rec.Code, rec.Body.String()
	}

	if code, body := get(); code != http.StatusOK || body != `{"status":"ok","store":"ok"}` {
		t.Fatalf("healthy: %d %s", code, body)
	}
	store.mu.Lock()
	store.err = errors.New("dial tcp 10.0.0.7:443: connection refused")
	store.mu.Unlock()
	for range 5 { // within healthTTL: the cached answer, no ping
		get()
	}
	if store.pings != 1 {
		t.Fatalf("%d pings for 6 checks within healthTTL, want 1", store.pings)
	}
	clock.Add(healthTTL)
	code, body := get()
	if code != http.StatusServiceUnavailable || !strings.Contains(body, `"store":"unavailable"`) || strings.Contains(body, "10.0.0.7") || strings.Contains(body, "refused") {
		t.Fatalf("store down: %d %s, want 503 without the cause", code, body)
	}
	id := body[strings.Index(body, "err-") : strings.Index(body, "err-")+16]
	if !strings.Contains(logs.String(), id) || !strings.Contains(logs.String(), "connection refused") {
		t.Fatalf("log %q lacks the cause under %s", logs.String(), id)
	}
}
