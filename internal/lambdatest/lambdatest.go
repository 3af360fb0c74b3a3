// Package lambdatest runs Lambda bootstraps the way Lambda does, on this
// machine: under the AWS Lambda runtime interface emulator (aws-lambda-rie),
// with DynamoDB served by moto, everything on 127.0.0.1. The functions'
// tests and the cold-start benchmark share it.
//
// The tests that run a bootstrap under the emulator live in files built
// only with the build tag EmulatorTag (each function's emulator_test.go):
// they are chosen by that tag, never by a test name, so a new one in such
// a file cannot be left out. Plain `go test` builds without them and says
// so (NeedEmulatorTests); `make test` builds with them.
//
// Tools are found on PATH (aws-lambda-rie also in GOBIN or GOPATH/bin, where
// `go install` puts it). A test that lacks one skips, unless
// testrequire's switch (set by `make test`) makes that a failure.
package lambdatest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
	"github.com/ticket-ledger/ticket-ledger/internal/testrequire"
)

// EndpointEnv names a running moto server (or any DynamoDB-compatible
// endpoint) to use instead of starting one; MotoEnv is its earlier name,
// still read.
const (
	EndpointEnv = "LEDGER_TEST_DYNAMODB_ENDPOINT"
	MotoEnv     = "LEDGER_TEST_MOTO_ENDPOINT"
)

// RIEModule is the emulator's module path, for `go install …@RIEVersion`.
const (
	RIEModule  = "github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie"
	RIEVersion = "v0.0.0-20261030222936-bef5c4ba774d"
)

// InvokePath is the emulator's invoke URL path (the Lambda Invoke API).
const InvokePath = "/2015-03-31/functions/function/invocations"

// TB is the part of testing.TB this package uses.
type TB interface {
	Helper()
	Skipf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Need skips t when err says a tool is missing (ErrNotInstalled), or fails
// it under testrequire's switch; any other error fails it.
func Need(t TB, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("%v", err)
	}
	testrequire.Missing(t, "scripts/prereqs.sh installs it; make test runs that first", "%v", err)
}

// EmulatorTag is the build tag of the test files that run a bootstrap
// under the emulator (building bootstraps and starting moto: minutes, and
// tools plain `go test` does not need).
const EmulatorTag = "lambdaemulator"

// NeedEmulatorTests is the test a package with emulator test files runs
// in its untagged files: built without EmulatorTag it skips, naming the
// tests left out, or fails under testrequire's switch, so that a run
// meant to be complete cannot pass without them.
func NeedEmulatorTests(t TB) {
	t.Helper()
	if !emulatorTests {
		testrequire.Missing(t, "go test -tags "+EmulatorTag+" builds them in (make test does)",
			"the Lambda emulator tests (emulator_test.go) are not in this build")
	}
}

// CleanupTB is a TB that can also run a function when the test ends.
type CleanupTB interface {
	TB
	Cleanup(func())
}

// Prepare is how every emulator test begins: it finds aws-lambda-rie and a
// moto endpoint (the one the environment names, or one it starts and
// stops when the test ends), under a context that ends after limit or with
// the test. A missing tool stops t as Need does.
func Prepare(t CleanupTB, limit time.Duration) (ctx context.Context, rie string, moto *Moto) {
	t.Helper()
	rie, err := RIEPath()
	Need(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	t.Cleanup(cancel)
	moto, err = StartMoto(ctx)
	Need(t, err)
	t.Cleanup(moto.Stop)
	return ctx, rie, moto
}

// BuildTB is a CleanupTB with a temporary directory of its own.
type BuildTB interface {
	CleanupTB
	TempDir() string
}

// Bootstrap builds the package in the current directory with build (Build
// or BuildAgents) for this machine into the test's temporary directory and
// returns the bootstrap's path; a failed build fails t.
func Bootstrap(t BuildTB, ctx context.Context, build func(ctx context.Context, pkg, out, goos, goarch string) error) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "bootstrap")
	if err := build(ctx, ".", out, "", ""); err != nil {
		t.Fatalf("%v", err)
	}
	return out
}

// ErrNotInstalled marks a missing tool, which Need turns into a skip.
var ErrNotInstalled = errors.New("not installed")

// RIEPath finds aws-lambda-rie.
func RIEPath() (string, error) {
	if p, err := exec.LookPath("aws-lambda-rie"); err == nil {
		return p, nil
	}
	var dirs []string
	if d := os.Getenv("GOBIN"); d != "" {
		dirs = append(dirs, d)
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		for _, d := range filepath.SplitList(strings.TrimSpace(string(out))) {
			dirs = append(dirs, filepath.Join(d, "bin"))
		}
	}
	for _, d := range dirs {
		p := filepath.Join(d, "aws-lambda-rie")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	return "", fmt.Errorf("aws-lambda-rie is %w (go install %s@%s)", ErrNotInstalled, RIEModule, RIEVersion)
}

// BuildTags are the build tags of the Lambda bootstraps, as the Makefile's
// LAMBDA_BUILD has them (a test holds the two together): the Lambda build
// (-tags lambda), the runtime without its RPC mode, and net/http without
// its bundled HTTP/2.
const BuildTags = "lambda.norpc,lambda,nethttpomithttp2"

// AgentsBuildTags are the tags of the agents' function (template.yaml
// McpFunction, the Makefile's AGENTS_BUILD): the Lambda build without the
// web board (functions/mcp/noboard.go).
const AgentsBuildTags = BuildTags + ",noboard"

// Build compiles a Lambda bootstrap the way `make build` does (static, no
// RPC mode, stripped) for goos/goarch; empty means this machine's. It is
// the full build, the board's function (WebFunction).
func Build(ctx context.Context, pkg, out, goos, goarch string) error {
	return build(ctx, "", BuildTags, pkg, out, goos, goarch)
}

// BuildAgents compiles the agents' bootstrap (McpFunction) as Build does
// the full one.
func BuildAgents(ctx context.Context, pkg, out, goos, goarch string) error {
	return build(ctx, "", AgentsBuildTags, pkg, out, goos, goarch)
}

// BuildIn is Build run in dir, the root of another copy of the module (an
// earlier version, to measure beside this one); "" is the current directory.
// The tags are that copy's own (its Makefile's LAMBDA_BUILD), so an earlier
// version is built as it was deployed.
func BuildIn(ctx context.Context, dir, pkg, out, goos, goarch string) error {
	return buildIn(ctx, dir, "LAMBDA_BUILD", BuildTags, pkg, out, goos, goarch)
}

// BuildAgentsIn is BuildAgents run in dir, with that copy's AGENTS_BUILD
// tags; a copy without them deployed one function, its LAMBDA_BUILD, to
// agents and people alike, and that is what is built.
func BuildAgentsIn(ctx context.Context, dir, pkg, out, goos, goarch string) error {
	return buildIn(ctx, dir, "AGENTS_BUILD", AgentsBuildTags, pkg, out, goos, goarch)
}

func buildIn(ctx context.Context, dir, variable, tags, pkg, out, goos, goarch string) error {
	if dir != "" {
		mk, err := os.ReadFile(filepath.Join(dir, "Makefile"))
		if err != nil {
			return err
		}
		tags = MakefileVarTags(mk, variable)
		if tags == "" {
			tags = MakefileTags(mk)
		}
		if tags == "" {
			return fmt.Errorf("%s/Makefile has no LAMBDA_BUILD line with -tags", dir)
		}
	}
	return build(ctx, dir, tags, pkg, out, goos, goarch)
}

func build(ctx context.Context, dir, tags, pkg, out, goos, goarch string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-tags", tags, "-trimpath", "-ldflags", "-s -w", "-o", out, pkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if goos != "" {
		cmd.Env = append(cmd.Env, "GOOS="+goos)
	}
	if goarch != "" {
		cmd.Env = append(cmd.Env, "GOARCH="+goarch)
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return nil
}

// Moto is a DynamoDB endpoint for tests.
type Moto struct {
	URL  string
	proc *process // nil when the environment named the endpoint
}

// StartMoto returns the endpoint EndpointEnv (or MotoEnv) names, or starts
// `moto_server -H 127.0.0.1 -p PORT` on a free loopback port and waits
// until it answers.
func StartMoto(ctx context.Context) (*Moto, error) {
	for _, env := range []string{EndpointEnv, MotoEnv} {
		if u := os.Getenv(env); u != "" {
			return &Moto{URL: u}, nil
		}
	}
	bin, err := exec.LookPath("moto_server")
	if err != nil {
		return nil, fmt.Errorf("moto_server is %w (pip install 'moto[server]')", ErrNotInstalled)
	}
	return StartMotoCommand(ctx, bin)
}

// StartMotoCommand starts a moto server of one's own, whatever the
// environment names: argv followed by `-H 127.0.0.1 -p PORT` on a free
// loopback port (the benchmarks start scripts/moto-stepfunctions.py, moto
// with its transaction snapshot fix, this way).
func StartMotoCommand(ctx context.Context, argv ...string) (*Moto, error) {
	var lastErr error
	for range 3 { // a free port can be taken between the probe and the bind
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		p, err := startProcess(argv[0], append(slices.Clone(argv[1:]), "-H", "127.0.0.1", "-p", strconv.Itoa(port)), os.Environ())
		if err != nil {
			return nil, err
		}
		url := fmt.Sprintf("http://127.0.0.1:%d", port)
		if err := p.waitReady(ctx, 60*time.Second, func() bool { return httpAnswers(url) }); err != nil {
			p.stop()
			lastErr = fmt.Errorf("%s: %w\n%s", argv[0], err, p.logs.String())
			continue
		}
		return &Moto{URL: url, proc: p}, nil
	}
	return nil, lastErr
}

// Stop ends the moto server this package started.
func (m *Moto) Stop() {
	if m.proc != nil {
		m.proc.stop()
	}
}

// Emulator is one Lambda execution environment: aws-lambda-rie running a
// bootstrap. Like Lambda, it starts the bootstrap (the init phase) on the
// first invocation and serves one invocation at a time.
type Emulator struct {
	// InvokeURL takes an event by POST and answers with the function's
	// response (the Lambda Invoke API).
	InvokeURL string
	proc      *process
}

// StartEmulator runs bootstrap under the emulator with both of its
// listeners on 127.0.0.1 (left to itself it listens on every interface).
// The bootstrap sees env plus what the emulator adds (AWS_LAMBDA_RUNTIME_API
// and the function's metadata); PATH and HOME come from this process, and
// AWS credentials are fixed dummy ones so no real account is ever used.
func StartEmulator(ctx context.Context, rie, bootstrap string, env []string) (*Emulator, error) {
	base := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "TMPDIR=" + os.TempDir(),
		"AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test", "AWS_REGION=us-east-1",
		"AWS_EC2_METADATA_DISABLED=true", "AWS_CONFIG_FILE=" + os.DevNull, "AWS_SHARED_CREDENTIALS_FILE=" + os.DevNull,
		"AWS_LAMBDA_FUNCTION_TIMEOUT=30", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE=512",
	}
	var lastErr error
	for range 3 {
		invokePort, err := freePort()
		if err != nil {
			return nil, err
		}
		apiPort, err := freePort()
		if err != nil {
			return nil, err
		}
		if apiPort == invokePort {
			continue
		}
		invokeAddr := fmt.Sprintf("127.0.0.1:%d", invokePort)
		args := []string{
			"--runtime-interface-emulator-address", invokeAddr,
			"--runtime-api-address", fmt.Sprintf("127.0.0.1:%d", apiPort),
			bootstrap,
		}
		p, err := startProcess(rie, args, append(base, env...))
		if err != nil {
			return nil, err
		}
		if err := p.waitReady(ctx, 30*time.Second, func() bool { return tcpAccepts(invokeAddr) }); err != nil {
			p.stop()
			lastErr = fmt.Errorf("aws-lambda-rie: %w\n%s", err, p.logs.String())
			continue
		}
		return &Emulator{InvokeURL: "http://" + invokeAddr + InvokePath, proc: p}, nil
	}
	return nil, lastErr
}

// Invoke sends one event and decodes the function's API Gateway response.
// A non-200 status from the emulator (the function failed or crashed) is an
// error carrying the body and the emulator's log.
func (e *Emulator) Invoke(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	var out events.APIGatewayV2HTTPResponse
	payload, err := json.Marshal(ev)
	if err != nil {
		return out, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.InvokeURL, bytes.NewReader(payload))
	if err != nil {
		return out, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return out, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return out, err
	}
	if resp.StatusCode != http.StatusOK {
		return out, fmt.Errorf("emulator answered HTTP %d: %s\nemulator log:\n%s", resp.StatusCode, body, e.Logs())
	}
	if err := json.Unmarshal(body, &out); err != nil || out.StatusCode == 0 {
		return out, fmt.Errorf("not an API Gateway response (%v): %s\nemulator log:\n%s", err, body, e.Logs())
	}
	return out, nil
}

// Logs is everything the emulator and the bootstrap printed so far.
func (e *Emulator) Logs() string { return e.proc.logs.String() }

var initReport = regexp.MustCompile(`INIT REPORT\(durationMs: ([0-9.]+)\)`)

// InitDuration is the init phase the emulator measured: from starting the
// bootstrap until it asked for its first event. The emulator's REPORT line
// has an "Init Duration" too, but it measures only the hand-off.
func (e *Emulator) InitDuration() (time.Duration, bool) {
	m := initReport.FindStringSubmatch(e.Logs())
	if m == nil {
		return 0, false
	}
	ms, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, false
	}
	return time.Duration(ms * float64(time.Millisecond)), true
}

// WaitInitDuration is InitDuration, waiting up to limit for the emulator to
// write its init report: it writes the line on its own schedule, and a
// response can reach the caller before the line reaches the log.
func (e *Emulator) WaitInitDuration(ctx context.Context, limit time.Duration) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	delay := time.Millisecond
	for {
		if d, ok := e.InitDuration(); ok {
			return d, nil
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("no init report in the emulator's log after %v:\n%s", limit, e.Logs())
		case <-e.proc.done:
			if d, ok := e.InitDuration(); ok {
				return d, nil
			}
			return 0, fmt.Errorf("the emulator exited without an init report:\n%s", e.Logs())
		case <-time.After(delay):
		}
		delay = min(2*delay, 50*time.Millisecond)
	}
}

// Stop ends the emulator and the bootstrap it started.
func (e *Emulator) Stop() { e.proc.stop() }

// HTTPEvent is the API Gateway HTTP API (payload format 2.0) event for one
// request to https://<domain><path>, as Lambda receives it.
func HTTPEvent(domain, method, path string, headers map[string]string, body []byte) events.APIGatewayV2HTTPRequest {
	h := map[string]string{"host": domain}
	for k, v := range headers {
		h[strings.ToLower(k)] = v
	}
	ev := events.APIGatewayV2HTTPRequest{
		Version:  "2.0",
		RouteKey: method + " " + path,
		RawPath:  path,
		Headers:  h,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			RouteKey:     method + " " + path,
			AccountID:    "123456789012",
			Stage:        "$default",
			RequestID:    strconv.FormatInt(time.Now().UnixNano(), 36),
			APIID:        strings.SplitN(domain, ".", 2)[0],
			DomainName:   domain,
			DomainPrefix: strings.SplitN(domain, ".", 2)[0],
			Time:         time.Now().UTC().Format("02/Jan/2006:15:04:05 -0700"),
			TimeEpoch:    time.Now().UnixMilli(),
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{
				Method: method, Path: path, Protocol: "HTTP/1.1", SourceIP: "192.0.2.1", UserAgent: "lambdatest",
			},
		},
	}
	if body != nil {
		// API Gateway base64-encodes bodies that are not text.
		if utf8.Valid(body) {
			ev.Body = string(body)
		} else {
			ev.Body = base64.StdEncoding.EncodeToString(body)
			ev.IsBase64Encoded = true
		}
	}
	return ev
}

// process is a child in its own process group, so stopping it also stops
// what it started (the emulator's bootstrap).
type process struct {
	cmd  *exec.Cmd
	logs *lockedBuffer
	done chan struct{}
	err  error
}

func startProcess(bin string, args, env []string) (*process, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	logs := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, logs: logs, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	return p, nil
}

// waitReady polls ready until it holds, the process exits, or the deadline.
func (p *process) waitReady(ctx context.Context, limit time.Duration, ready func() bool) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	delay := 10 * time.Millisecond
	for {
		if ready() {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("exited before it was ready: %v", p.err)
		case <-ctx.Done():
			return fmt.Errorf("not ready after %v", limit)
		case <-time.After(delay):
		}
		delay = min(delay*2, 200*time.Millisecond)
	}
}

func (p *process) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
	// The bootstrap may outlive its emulator for a moment; its group goes too.
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func tcpAccepts(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func httpAnswers(url string) bool {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return true
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Lines returns the log lines that contain substr.
func (e *Emulator) Lines(substr string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(e.Logs()))
	for sc.Scan() {
		if strings.Contains(sc.Text(), substr) {
			out = append(out, sc.Text())
		}
	}
	return out
}

// DynamoProxy stands between functions and a DynamoDB endpoint on
// 127.0.0.1. With Serialize it forwards one request at a time: moto applies
// a transaction item by item and undoes a cancelled one by restoring a
// snapshot of the whole table, so two processes writing at once can undo
// each other's committed writes, which DynamoDB never does; one at a time,
// moto's requests are atomic as DynamoDB's are, while the functions' calls
// still interleave request by request. Observe, if set, sees each request's
// operation (X-Amz-Target without its prefix) and JSON body.
type DynamoProxy struct {
	URL       string
	Serialize bool
	Observe   func(op string, body []byte)

	target string
	mu     sync.Mutex
	srv    *http.Server
	ln     net.Listener
}

// StartDynamoProxy starts a proxy to target; set Serialize and Observe on
// the result before the first request.
func StartDynamoProxy(target string) (*DynamoProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &DynamoProxy{URL: "http://" + ln.Addr().String(), target: strings.TrimRight(target, "/"), ln: ln}
	p.srv = &http.Server{Handler: http.HandlerFunc(p.serve), ReadHeaderTimeout: 10 * time.Second}
	go p.srv.Serve(ln)
	return p, nil
}

func (p *DynamoProxy) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if p.Observe != nil {
		op := r.Header.Get("X-Amz-Target")
		if i := strings.LastIndexByte(op, '.'); i >= 0 {
			op = op[i+1:]
		}
		p.Observe(op, body)
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, p.target+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	if p.Serialize {
		p.mu.Lock()
		defer p.mu.Unlock()
	}
	resp, err := http.DefaultTransport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	respBody, err := io.ReadAll(resp.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	// DynamoDB checksums every response; minidyn does not, and the SDK
	// warns about each one that lacks it.
	if resp.Header.Get("X-Amz-Crc32") == "" && resp.Header.Get("Content-Encoding") == "" {
		w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(respBody)), 10))
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(respBody)
}

// Close stops the proxy.
func (p *DynamoProxy) Close() { p.srv.Close() }

// MakefileTags is the -tags of a Makefile's LAMBDA_BUILD line ("" if none).
func MakefileTags(makefile []byte) string { return MakefileVarTags(makefile, "LAMBDA_BUILD") }

// MakefileVarTags is the -tags of the Makefile's line defining variable
// ("" if none).
func MakefileVarTags(makefile []byte, variable string) string {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(variable) + `\s*=.*-tags (\S+)`).FindSubmatch(makefile)
	if m == nil {
		return ""
	}
	return string(m[1])
}
