package storetest

import (
	"log/slog"
	"strings"
	"testing"
)

// testLogger sends a service's log to the test's own log, so a call that
// fails with an internal error id shows its cause (logged under that id)
// beside the failure, and nothing when the test passes.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
