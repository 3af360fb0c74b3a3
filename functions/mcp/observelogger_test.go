package main

import (
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"testing"
)

// The log's form: JSON when stderr is a file or a pipe (and always in
// Lambda), text when LEDGER_LOG_FORMAT says so (the default on a
// terminal); info by default, so request lines show.
func TestLoggerFormat(t *testing.T) {
	write := func(env map[string]string) string {
		f, err := os.CreateTemp(t.TempDir(), "log")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		log := newLogger(mapEnv(env), f)
		log.Info("request", "status", 200)
		log.Debug("hidden")
		b, _ := os.ReadFile(f.Name())
		return string(b)
	}
	var line map[string]any
	out := write(nil)
	if err := json.Unmarshal([]byte(out), &line); err != nil || line["level"] != "INFO" || line["msg"] != "request" {
		t.Errorf("default off a terminal: %q, want one JSON line at INFO", out)
	}
	if out := write(map[string]string{envLogFormat: "text"}); !strings.HasPrefix(out, "time=") || !strings.Contains(out, "level=INFO msg=request status=200") {
		t.Errorf("LEDGER_LOG_FORMAT=text: %q", out)
	}
	if out := write(map[string]string{"LEDGER_LOG_LEVEL": "warn"}); out != "" {
		t.Errorf("at warn an info line was written: %q", out)
	}
	if sdkLevel(slog.LevelInfo) != slog.LevelWarn || sdkLevel(slog.LevelDebug) != slog.LevelDebug || sdkLevel(slog.LevelError) != slog.LevelError {
		t.Error("the go-sdk's level is warn unless the log's is debug (or above warn)")
	}
}
