//go:build unix

package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	ledgerauth "github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
	"github.com/ticket-ledger/ticket-ledger/internal/testrequire"
)

// A team server behind a real TLS-terminating reverse proxy on loopback:
// Caddy (as docs/team.md sets it up, which keeps the Host)
// and Go's httputil.ReverseProxy (which rewrites the Host and says the
// public one in X-Forwarded-Host). Through each, OAuth discovery names the
// public URL and a person signs in with a browser.

// Caddy also runs active health checks on the server, as a load balancer
// would: it asks /healthz by the upstream's own address, not the public
// name, and the server answers them (it answered 421 before, which would
// take it out of Caddy's rotation).
func TestTeamBehindCaddy(t *testing.T) {
	caddy := caddyPath(t)
	port := freePort(t)
	// Caddy's plain-HTTP port must differ from the public one, or it
	// refuses the config ("scheme and port violate convention"): two
	// picks of the kernel's can be the same port, once the first is closed.
	httpPort := freePort(t)
	for httpPort == port {
		httpPort = freePort(t)
	}
	public := fmt.Sprintf("https://127.0.0.1:%d", port)
	publicHost := strings.TrimPrefix(public, "https://")
	// Each /healthz that did not come as the public name (Caddy's own
	// checks) reports the status it got.
	probes := make(chan int, 64)
	upstream := startTeamLedgerWith(t, public, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != healthPath || r.Host == publicHost {
				next.ServeHTTP(w, r)
				return
			}
			rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
			next.ServeHTTP(rec, r)
			select {
			case probes <- rec.status:
			default:
			}
		})
	})
	dir := t.TempDir()
	// admin off and no redirect listener: nothing binds a fixed port (other
	// tests may run a Caddy at the same time); the internal CA lives in the
	// test's directory and is not installed anywhere.
	caddyfile := fmt.Sprintf(`{
	admin off
	skip_install_trust
	auto_https disable_redirects
	http_port %d
	https_port %d
	storage file_system %s
}

%s {
	tls internal
	reverse_proxy %s {
		health_uri /healthz
		health_interval 250ms
		health_timeout 5s
	}
}
`, httpPort, port, filepath.Join(dir, "storage"), public, upstream)
	config := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(config, []byte(caddyfile), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(caddy, "run", "--config", config, "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	// Closed after the exit is reported: any later receive (stopProcess
	// after a failure that read the exit) returns at once.
	go func() { exited <- cmd.Wait(); close(exited) }()
	t.Cleanup(func() { stopProcess(t, cmd, exited) })
	waitHealthy(t, public, exited, &out)
	select {
	case status := <-probes:
		if status != http.StatusOK {
			t.Fatalf("Caddy's active health check of %s got %d, want 200\n%s", upstream, status, &out)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("Caddy ran no active health check within 30 s\n%s", &out)
	}
	checkPublicDiscovery(t, public)
	signInThroughProxy(t, public)
}

// statusRecorder remembers the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func TestTeamBehindGoReverseProxy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	public := "https://" + ln.Addr().String()
	upstream, err := url.Parse("http://" + startTeamLedger(t, public))
	if err != nil {
		t.Fatal(err)
	}
	proxy := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(upstream) // the Host becomes the upstream's own address
		pr.SetXForwarded()  // X-Forwarded-For, -Host (the public name), -Proto
	}}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: proxy}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	waitHealthy(t, public, nil, &lockedBuffer{})
	checkPublicDiscovery(t, public)
	signInThroughProxy(t, public)
}

// startTeamLedger serves the composition root as a team server would be
// configured (from the environment, through the listen check) on a free
// loopback port, trusting the proxy on 127.0.0.1, with alice as a person.
// It returns the address the proxy forwards to.
func startTeamLedger(t *testing.T, public string) string {
	t.Helper()
	return startTeamLedgerWith(t, public, func(h http.Handler) http.Handler { return h })
}

// startTeamLedgerWith is startTeamLedger with wrap around the server's
// handler, for a test that watches what reaches it.
func startTeamLedgerWith(t *testing.T, public string, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	cfg, err := loadConfig(env(map[string]string{"LEDGER_AUTH": "required", "LEDGER_ADDR": "127.0.0.1:0", "LEDGER_BASE_URL": public,
		"LEDGER_TRUSTED_PROXIES": "127.0.0.1/32"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkListen(cfg); err != nil {
		t.Fatal(err)
	}
	store := e2eStore(t, "sqlite")
	pw := e2ePassword
	if _, err := ledgerauth.NewAccounts(ledgerauth.Config{Store: store}).AddPerson(board.WithPrincipal(context.Background(), ledgerauth.Operator),
		ledgerauth.AddPersonInput{Handle: "alice", Password: &pw, Role: board.RoleAdmin}); err != nil {
		t.Fatal(err)
	}
	h, err := newHandler(cfg, store, slog.New(slog.DiscardHandler), mcpserver.HandlerOptions{AllowedOrigins: cfg.AllowedOrigins})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := newHTTPServer(wrap(h), defaultLimits)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// insecureClient trusts the proxy's test certificate (Caddy's internal CA,
// httptest's certificate): what is tested is the proxying, not the CA.
var insecureClient = &http.Client{Timeout: 10 * time.Second,
	Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}

// waitHealthy polls the public URL's /healthz until it answers 200
// through the proxy, the proxy exits, or the deadline passes.
func waitHealthy(t *testing.T, public string, exited <-chan error, out *lockedBuffer) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	last := "no answer yet"
	for {
		resp, err := insecureClient.Get(public + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		select {
		case err := <-exited:
			t.Fatalf("the proxy exited (%v):\n%s", err, out)
		case <-deadline:
			t.Fatalf("%s/healthz did not answer 200 within 30 s (last: %s)\n%s", public, last, out)
		case <-tick.C:
		}
	}
}

// checkPublicDiscovery reads the OAuth documents through the proxy: they
// name the public URL, and /mcp's challenge points to them there.
func checkPublicDiscovery(t *testing.T, public string) {
	t.Helper()
	get := func(path string) map[string]any {
		t.Helper()
		resp, err := insecureClient.Get(public + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var doc map[string]any
		if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&doc) != nil {
			t.Fatalf("GET %s through the proxy: %s", path, resp.Status)
		}
		return doc
	}
	as := get("/.well-known/oauth-authorization-server")
	if as["issuer"] != public || as["authorization_endpoint"] != public+"/oauth/authorize" || as["token_endpoint"] != public+"/oauth/token" {
		t.Errorf("authorization server metadata through the proxy: issuer %v, endpoints %v %v; want them at %s", as["issuer"], as["authorization_endpoint"], as["token_endpoint"], public)
	}
	pr := get("/.well-known/oauth-protected-resource/mcp")
	if pr["resource"] != public+"/mcp" || fmt.Sprint(pr["authorization_servers"]) != "["+public+"]" {
		t.Errorf("protected resource metadata through the proxy: %v; want resource %s/mcp, server %s", pr, public, public)
	}
	req, err := http.NewRequest(http.MethodPost, public+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := insecureClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if want := `resource_metadata="` + public + `/.well-known/oauth-protected-resource/mcp"`; resp.StatusCode != http.StatusUnauthorized ||
		!strings.Contains(resp.Header.Get("WWW-Authenticate"), want) {
		t.Errorf("/mcp through the proxy: %s %q; want 401 naming %s", resp.Status, resp.Header.Get("WWW-Authenticate"), want)
	}
}

// signInThroughProxy signs alice in with a real browser at the public
// URL: the sign-in form, its cross-origin check, the Secure session cookie
// and the board behind it all work through the proxy.
func signInThroughProxy(t *testing.T, public string) {
	t.Helper()
	exe := teamBrowserPath(t)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.Flag("ignore-certificate-errors", true))...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	sctx, cancelSteps := context.WithTimeout(ctx, 60*time.Second)
	defer cancelSteps()
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	if err := chromedp.Do(sctx,
		chromedp.Navigate(public+"/w/inbox"),
		chromedp.WaitVisible(css(`input[name="handle"]`)),
		chromedp.SendKeys(css(`input[name="handle"]`), "alice"),
		chromedp.SendKeys(css(`input[name="password"]`), e2ePassword),
		chromedp.Submit(css(`input[name="password"]`)),
		chromedp.WaitVisible(css(`#board`)),
	); err != nil {
		html, _ := chromedp.Run(sctx, chromedp.OuterHTML(chromedp.CSS("body")))
		t.Fatalf("signing in through the proxy: %v\n%s", err, html)
	}
	loc, err := chromedp.Run(sctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	me, err := chromedp.Run(sctx, chromedp.Text(css(`.me`)))
	if err != nil {
		t.Fatal(err)
	}
	if loc != public+"/w/inbox" || !strings.Contains(me, "alice") {
		t.Fatalf("after signing in through the proxy: at %s as %q; want %s/w/inbox as alice", loc, me, public)
	}
}

// caddyPath finds caddy; missing, the test is skipped with the reason, or
// fails under testrequire's switch.
func caddyPath(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("caddy"); err == nil {
		return p
	}
	testrequire.Missing(t, "scripts/prereqs.sh installs it; make test runs that first", "caddy is not installed")
	return ""
}

// teamBrowserPath finds Debian's chromium-headless-shell, as the board's
// browser test does.
func teamBrowserPath(t *testing.T) string {
	t.Helper()
	return testrequire.Browser(t)
}

// Write makes lockedBuffer a process's stdout and stderr.
func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// freePort is a loopback port nothing listens on now (the kernel's pick).
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// stopProcess asks a process to stop (SIGINT, as Caddy expects) and kills
// it if it has not exited within 10 s.
func stopProcess(t *testing.T, cmd *exec.Cmd, exited <-chan error) {
	t.Helper()
	_ = cmd.Process.Signal(os.Interrupt)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
		t.Error("the proxy did not stop within 10 s of SIGINT; killed it")
	}
}

// The binary itself applies the listen rules before it opens anything:
// off loopback, loopback mode and plain-HTTP required mode stop with the
// reason (exit 1), as does required mode on loopback with a plain-HTTP
// public name; required mode with an https public URL serves.
func TestTeamServerListenRulesInTheBinary(t *testing.T) {
	bin := buildServer(t)
	base := []string{"LEDGER_DATA=" + t.TempDir(), "LEDGER_STORE=sqlite", "LEDGER_ADDR=0.0.0.0:0"}
	for _, c := range []struct {
		name string
		env  []string
		want string
	}{
		{"loopback mode", []string{"LEDGER_AUTH=loopback"}, "is not a loopback address"},
		{"required mode, plain HTTP", []string{"LEDGER_AUTH=required", "LEDGER_BASE_URL=http://board.example.com"}, "would cross the network in clear"},
		{"required mode on loopback, a plain HTTP public name", []string{"LEDGER_AUTH=required", "LEDGER_ADDR=127.0.0.1:0", "LEDGER_BASE_URL=http://board.example.com"},
			`http://board.example.com\" is not https`},
		{"a bad proxy list", []string{"LEDGER_AUTH=required", "LEDGER_BASE_URL=https://board.example.com", "LEDGER_TRUSTED_PROXIES=10.0.0.0/33"}, "not a CIDR"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, bin)
		cmd.Env = append(append(withoutLedgerEnv(), base...), c.env...)
		out, err := cmd.CombinedOutput()
		cancel()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), c.want) {
			t.Errorf("%s: %v\n%s\nwant exit 1 saying %q", c.name, err, out, c.want)
		}
	}

	cmd := exec.Command(bin)
	cmd.Env = append(append(withoutLedgerEnv(), base...), "LEDGER_AUTH=required", "LEDGER_BASE_URL=https://board.example.com")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listeningLine.FindStringSubmatch(sc.Text()); m != nil {
				listening <- m[1]
			}
		}
		exited <- cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() { stopProcess(t, cmd, exited) })
	select {
	case addr := <-listening:
		if !strings.HasPrefix(addr, "http://[::]:") && !strings.HasPrefix(addr, "http://0.0.0.0:") {
			t.Errorf("listening on %s, want every address", addr)
		}
	case err := <-exited:
		t.Fatalf("required mode on 0.0.0.0 behind https stopped: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("required mode on 0.0.0.0 behind https did not say it listens within a minute")
	}
}

// withoutLedgerEnv is this process's environment less the settings the
// binary reads, so the test's own environment cannot change its outcome.
func withoutLedgerEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LEDGER_") && !strings.HasPrefix(kv, "DYNAMODB_") {
			env = append(env, kv)
		}
	}
	return env
}
