package obs

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// Config says where a request's line and metrics go.
type Config struct {
	// Logger receives one line per request ("request").
	Logger *slog.Logger
	// Metrics receives one EMF line per request; nil: none.
	Metrics *Metrics
	// RequestID returns the id the platform gave the request (API
	// Gateway's, on Lambda), or "" for one made here.
	RequestID func(*http.Request) string
}

// The surfaces a request may reach, by path.
const (
	SurfaceMCP    = "mcp"
	SurfaceREST   = "rest"
	SurfaceWeb    = "web"
	SurfaceOAuth  = "oauth"
	SurfaceHealth = "health"
)

// SurfaceOf names the surface a path belongs to.
func SurfaceOf(path string) string {
	switch {
	case path == "/mcp" || strings.HasPrefix(path, "/mcp/"):
		return SurfaceMCP
	case path == "/api/v1" || strings.HasPrefix(path, "/api/v1/"):
		return SurfaceREST
	case path == "/healthz":
		return SurfaceHealth
	case strings.HasPrefix(path, "/oauth/") || strings.HasPrefix(path, "/.well-known/"):
		return SurfaceOAuth
	}
	return SurfaceWeb
}

// routeOf is what the log names when no route pattern was noted: the method
// and the path, never the query (OAuth's state and challenge, search text),
// and with the secret of an invitation link left out.
func routeOf(r *http.Request) string {
	path := r.URL.Path
	if strings.HasPrefix(path, "/invite/") {
		path = "/invite/{secret}"
	}
	if len(path) > 200 {
		path = path[:200] + "…"
	}
	return r.Method + " " + path
}

// Middleware serves next with a Request in the context, then writes the
// request's log line and metrics. It is the outermost handler, so it sees
// every answer: the resolver's 401s, the SDK's refusals, panics excepted
// (those fail the process or the invocation, and the platform logs them).
func Middleware(cfg Config, next http.Handler) http.Handler {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &Request{start: time.Now(), surface: SurfaceOf(r.URL.Path)}
		if cfg.RequestID != nil {
			rec.id = cfg.RequestID(r)
		}
		if rec.id == "" {
			rec.id = newRequestID()
		}
		sw := &statusWriter{ResponseWriter: w}
		inner := r.WithContext(NewContext(r.Context(), rec))
		next.ServeHTTP(sw, inner)
		status := sw.status
		if status == 0 {
			status = http.StatusOK // net/http's implicit answer
		}
		rec.mu.Lock()
		if rec.route == "" {
			rec.route = routeOf(r)
		}
		// A ServeMux sets the pattern it matched on the request it serves.
		rec.pattern = inner.Pattern
		rec.mu.Unlock()
		s := rec.summary(status, time.Now(), r.Method)
		Log(r.Context(), log, s)
		cfg.Metrics.EmitRequest(s)
	})
}

// Log writes the request's line: info, or error when the failure is the
// server's. It carries ids (the request's, the task's, the error's), never
// a credential: the principal is the author a credential resolved to.
func Log(ctx context.Context, log *slog.Logger, s Summary) {
	attrs := []slog.Attr{
		slog.String("request_id", s.ID),
		slog.String("surface", s.Surface),
		slog.String("route", s.Route),
	}
	if s.Method != "" {
		attrs = append(attrs, slog.String("mcp_method", s.Method))
	}
	if s.Tool != "" {
		attrs = append(attrs, slog.String("tool", s.Tool))
	}
	if s.Author != "" {
		attrs = append(attrs, slog.String("author", s.Author))
	}
	if s.OnBehalfOf != "" {
		attrs = append(attrs, slog.String("on_behalf_of", s.OnBehalfOf))
	}
	attrs = append(attrs,
		slog.Int("status", s.Status),
		slog.Float64("latency_ms", float64(s.Latency.Microseconds())/1000),
		slog.Int64("store_requests", s.StoreRequests),
		slog.Bool("replayed", s.Replayed),
	)
	if s.StoreThrottles > 0 {
		attrs = append(attrs, slog.Int64("store_throttles", s.StoreThrottles))
	}
	if s.StoreConflicts > 0 {
		attrs = append(attrs, slog.Int64("store_conflicts", s.StoreConflicts))
	}
	if s.TaskID != "" {
		attrs = append(attrs, slog.String("task_id", s.TaskID))
	}
	if s.ErrorCode != "" {
		attrs = append(attrs, slog.String("error_code", s.ErrorCode))
	}
	if s.ErrorID != "" {
		attrs = append(attrs, slog.String("error_id", s.ErrorID))
	}
	if s.ErrorCause != "" {
		attrs = append(attrs, slog.String("error", s.ErrorCause))
	}
	level := slog.LevelInfo
	if s.ServerError() {
		level = slog.LevelError
	}
	log.LogAttrs(ctx, level, "request", attrs...)
}

func newRequestID() string {
	var b [8]byte
	_, _ = crand.Read(b[:])
	return "req-" + hex.EncodeToString(b[:])
}

// statusWriter keeps the status the handler answered.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush and Unwrap keep streaming answers and http.ResponseController
// working through the wrapper.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
