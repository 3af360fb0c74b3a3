package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/awslabs/aws-lambda-go-api-proxy/core"
	"github.com/ticket-ledger/ticket-ledger/internal/obs"
)

// Logs and metrics (docs/operations.md).
const (
	// envLogFormat: json (the default off a terminal, and always on
	// Lambda) or text (the default when stderr is a terminal).
	envLogFormat = "LEDGER_LOG_FORMAT"
	// envMetrics: emf writes CloudWatch embedded-metric-format lines to
	// stdout (the default on Lambda); off (the local default) writes none.
	envMetrics = "LEDGER_METRICS"
)

// newLogger is the process's logger: JSON lines with a level on each,
// which Lambda's JSON log format and CloudWatch Logs Insights read as
// fields; human-readable text when a person watches the terminal.
func newLogger(getenv func(string) string, stderr *os.File) *slog.Logger {
	opts := &slog.HandlerOptions{Level: logLevel(getenv)}
	format := getenv(envLogFormat)
	if format == "" {
		format = "json"
		if isTerminal(stderr) && getenv(envRuntimeAPI) == "" {
			format = "text"
		}
	}
	if format == "text" {
		return slog.New(slog.NewTextHandler(stderr, opts))
	}
	return slog.New(slog.NewJSONHandler(stderr, opts))
}

// isTerminal: f is a character device (a terminal), not a file or a pipe.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// logLevel is info unless LEDGER_LOG_LEVEL says debug, warn or error.
func logLevel(getenv func(string) string) slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(getenv("LEDGER_LOG_LEVEL"))); err != nil {
		return slog.LevelInfo
	}
	return l
}

// metricsWriter is where EMF lines go: stdout when LEDGER_METRICS=emf
// (Lambda's default, lambdaGetenv), nowhere otherwise.
func metricsWriter(getenv func(string) string, stdout io.Writer) io.Writer {
	if getenv(envMetrics) == "emf" {
		return stdout
	}
	return nil
}

// observed wraps the routes with the request's log line and metrics.
func observed(cfg config, log *slog.Logger, h http.Handler) http.Handler {
	var metrics *obs.Metrics
	if cfg.metricsOut != nil {
		metrics = obs.NewMetrics(cfg.metricsOut)
	}
	return obs.Middleware(obs.Config{Logger: log, Metrics: metrics, RequestID: apiGatewayRequestID}, h)
}

// apiGatewayRequestID is the id API Gateway gave the request (the one in
// its access log and in the function's REPORT line), when the request came
// through it.
func apiGatewayRequestID(r *http.Request) string {
	if rc, ok := core.GetAPIGatewayV2ContextFromContext(r.Context()); ok {
		return rc.RequestID
	}
	return ""
}

// sdkLevel is the go-sdk's minimum level: warn, or the configured level
// when that is debug (to see what the SDK does).
func sdkLevel(configured slog.Level) slog.Level {
	if configured <= slog.LevelDebug {
		return configured
	}
	return max(slog.LevelWarn, configured)
}

// atLeast raises a handler's minimum level: the go-sdk logs every stateless
// connection at info, which would double the request lines.
type atLeast struct {
	slog.Handler
	min slog.Level
}

func (h atLeast) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h atLeast) WithAttrs(as []slog.Attr) slog.Handler {
	return atLeast{h.Handler.WithAttrs(as), h.min}
}

func (h atLeast) WithGroup(name string) slog.Handler {
	return atLeast{h.Handler.WithGroup(name), h.min}
}

// announce writes an info line whatever the level: the handler is called
// directly, past the logger's level check.
func announce(log *slog.Logger, msg string) {
	_ = log.Handler().Handle(context.Background(), slog.NewRecord(time.Now(), slog.LevelInfo, msg, 0))
}
