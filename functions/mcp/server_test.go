package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/tasks"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
	miniserver "github.com/truora/minidyn/server"
)

func env(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

func TestConfigDefaults(t *testing.T) {
	c, err := loadConfig(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:8080" || c.DataDir != "./data" || c.Store != "sqlite" || c.Retention != 24*time.Hour ||
		c.BaseURL != "http://127.0.0.1:8080" || c.Author != "" {
		t.Fatalf("defaults = %+v", c)
	}
	if p := c.principal(); p.Author != "" || !strings.Contains(p.NoAuthorReason, "LEDGER_AUTHOR=ai:<name>") {
		t.Fatalf("principal without author = %+v", p)
	}
}

func TestConfigRefusesBadValues(t *testing.T) {
	for _, c := range []struct {
		kv   map[string]string
		want string
	}{
		{map[string]string{"LEDGER_AUTHOR": "human"}, "must be ai:<name>"},
		{map[string]string{"LEDGER_AUTHOR": "ai:"}, "must be ai:<name>"},
		{map[string]string{"LEDGER_RETENTION": "30m"}, "below the minimum"},
		{map[string]string{"LEDGER_RETENTION": "a day"}, "not a duration"},
		{map[string]string{"LEDGER_STORE": "postgres"}, "sqlite or dynamodb"},
		{map[string]string{"LEDGER_CREATE_TABLE": "maybe"}, "is not a boolean"},
		{map[string]string{"LEDGER_DYNAMODB_SERIALIZE_WRITES": "yes please"}, "LEDGER_DYNAMODB_SERIALIZE_WRITES"},
	} {
		if _, err := loadConfig(env(c.kv)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want %q", c.kv, err, c.want)
		}
	}
	c, err := loadConfig(env(map[string]string{"LEDGER_AUTHOR": "ai:claude", "LEDGER_RETENTION": "36h", "LEDGER_ALLOWED_ORIGINS": "https://a.test/, https://b.test"}))
	if err != nil || c.Author != "ai:claude" || c.Retention != 36*time.Hour || strings.Join(c.AllowedOrigins, ",") != "https://a.test,https://b.test" {
		t.Fatalf("config = %+v, %v", c, err)
	}
}

// Serialized DynamoDB writes are an explicit setting, off by default: an
// endpoint URL alone (a regional, FIPS or VPC endpoint is DynamoDB itself)
// never turns them on, and the store opened gets what the setting says.
func TestSerializeWritesIsExplicit(t *testing.T) {
	mini := httptest.NewServer(miniserver.NewServer())
	t.Cleanup(mini.Close)
	testbackends.FakeAWSCredentials(t)
	for _, c := range []struct {
		setting string
		want    bool
	}{{"", false}, {"0", false}, {"1", true}, {"true", true}} {
		kv := map[string]string{"LEDGER_STORE": "dynamodb", "DYNAMODB_ENDPOINT": mini.URL, "LEDGER_CREATE_TABLE": "1",
			"LEDGER_TABLE": fmt.Sprintf("serialize-%d", time.Now().UnixNano())}
		if c.setting != "" {
			kv["LEDGER_DYNAMODB_SERIALIZE_WRITES"] = c.setting
		}
		cfg, err := loadConfig(env(kv))
		if err != nil {
			t.Fatal(err)
		}
		st, err := openStore(t.Context(), cfg, slog.New(slog.DiscardHandler), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.(*dynamo.Store).SerializesWrites(); got != c.want {
			t.Errorf("LEDGER_DYNAMODB_SERIALIZE_WRITES=%q with DYNAMODB_ENDPOINT set: store serializes writes = %v, want %v", c.setting, got, c.want)
		}
	}
}

// The local server's limits are all set: none of them is "forever".
func TestDefaultLimitsAreSet(t *testing.T) {
	l := defaultLimits
	if l.ReadHeader <= 0 || l.Read <= 0 || l.Write <= 0 || l.Idle <= 0 || l.MaxHeaderBytes <= 0 {
		t.Fatalf("defaultLimits %+v: every limit must be set", l)
	}
	srv := newHTTPServer(http.NotFoundHandler(), l)
	if srv.ReadHeaderTimeout != l.ReadHeader || srv.ReadTimeout != l.Read || srv.WriteTimeout != l.Write ||
		srv.IdleTimeout != l.Idle || srv.MaxHeaderBytes != l.MaxHeaderBytes {
		t.Fatalf("server %+v does not carry the limits %+v", srv, l)
	}
}

// Slow and idle clients are cut off: one that trickles its body, one that
// never finishes its headers, and one that keeps an idle keep-alive
// connection; oversized headers are refused with 431. The limits are short
// here; their defaults are checked above.
func TestServerCutsOffSlowAndIdleClients(t *testing.T) {
	limits := serverLimits{ReadHeader: 300 * time.Millisecond, Read: 500 * time.Millisecond, Write: 2 * time.Second,
		Idle: 300 * time.Millisecond, MaxHeaderBytes: 4 << 10}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			return
		}
		fmt.Fprintln(w, "ok")
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := newHTTPServer(h, limits)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	dial := func() net.Conn {
		t.Helper()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	// closedWithin reads until the server closes the connection or the
	// deadline passes (then the server held it too long).
	closedWithin := func(c net.Conn, d time.Duration) bool {
		c.SetReadDeadline(time.Now().Add(d))
		_, err := io.Copy(io.Discard, c)
		var ne net.Error
		return !(errors.As(err, &ne) && ne.Timeout())
	}

	t.Run("trickled body", func(t *testing.T) {
		c := dial()
		fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
		stop := make(chan struct{})
		defer close(stop)
		go func() { // one byte every 20 ms: the body would take over half an hour
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					if _, err := c.Write([]byte("x")); err != nil {
						return
					}
				}
			}
		}()
		if !closedWithin(c, 5*time.Second) {
			t.Fatal("a client trickling its body kept its connection past the read limit")
		}
	})
	t.Run("unfinished headers", func(t *testing.T) {
		c := dial()
		fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: x\r\n")
		if !closedWithin(c, 5*time.Second) {
			t.Fatal("a client that never finished its headers kept its connection")
		}
	})
	t.Run("idle keep-alive", func(t *testing.T) {
		c := dial()
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.Close {
			t.Fatal("the server closed after one request; the keep-alive case is not tested")
		}
		if !closedWithin(c, 5*time.Second) {
			t.Fatal("an idle keep-alive connection stayed open past the idle limit")
		}
	})
	t.Run("oversized headers", func(t *testing.T) {
		c := dial()
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n", strings.Repeat("a", 16<<10))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
			t.Fatalf("16 KiB of headers: HTTP %d, want 431", resp.StatusCode)
		}
	})
}

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
