package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/obs"
	"github.com/ticket-ledger/ticket-ledger/internal/obs/obstest"
)

// served is the binary serving locally, its stderr (the log) and stdout
// (the metrics).
type served struct {
	base           string
	stderr, stdout *lockedBuffer
}

// serveWith runs the built binary as a local server on data with env added
// (LEDGER_ADDR and LEDGER_DATA set here), its stderr and stdout collected.
func serveWith(t *testing.T, bin, data string, env ...string) served {
	t.Helper()
	cmd := exec.Command(bin)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LEDGER_") && !strings.HasPrefix(kv, "DYNAMODB_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "LEDGER_ADDR=127.0.0.1:0", "LEDGER_DATA="+data, "LEDGER_STORE=sqlite")
	cmd.Env = append(cmd.Env, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := served{stderr: &lockedBuffer{}, stdout: &lockedBuffer{}}
	addr := make(chan string, 1)
	var done sync.WaitGroup
	done.Go(func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			s.stderr.WriteString(sc.Text() + "\n")
			if m := listeningLine.FindStringSubmatch(sc.Text()); m != nil {
				addr <- strings.TrimSuffix(m[1], "/mcp")
			}
		}
	})
	done.Go(func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			s.stdout.WriteString(sc.Text() + "\n")
		}
	})
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		done.Wait()
	})
	select {
	case s.base = <-addr:
		return s
	case <-time.After(30 * time.Second):
		t.Fatalf("the server did not report listening:\n%s", s.stderr.String())
	}
	return s
}

// requestLines are the server's request lines so far; every line of the
// log must be JSON with a level, the startup lines included.
func requestLines(t *testing.T, log string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("a log line that is not JSON: %q", l)
		}
		if _, ok := m["level"].(string); !ok {
			t.Errorf("a log line without a level: %s", l)
		}
		if m["msg"] == "request" {
			out = append(out, m)
		}
	}
	return out
}

// waitLines polls the log until it holds n request lines (the log is read
// from a pipe), or fails at the deadline.
func waitLines(t *testing.T, s served, n int) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		lines := requestLines(t, s.stderr.String())
		if len(lines) >= n || time.Now().After(deadline) {
			if len(lines) != n {
				t.Fatalf("%d request lines, want %d:\n%s", len(lines), n, s.stderr.String())
			}
			return lines
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The log line of each kind of call, from the binary in required mode with
// metrics on: one JSON line per request with a level, the route or MCP
// method and tool, the principal, the status, the latency, the store
// requests, replayed, the error code (a mismatch, a policy refusal); no
// token, password, session cookie or authorization code anywhere in the
// output; and one valid EMF line per request on stdout.
func TestRequestLogLines(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := buildServer(t)
	data := t.TempDir()
	env := []string{"LEDGER_DATA=" + data, "LEDGER_STORE=sqlite", "LEDGER_ADDR=127.0.0.1:8080", "LEDGER_BASE_URL="}
	const password = "a-password-nobody-logs-42"
	if _, errOut, code := admin(t, bin, env, password+"\n", "people", "add", "alice", "--admin", "--password-stdin"); code != 0 {
		t.Fatalf("people add: %s", errOut)
	}
	agentToken, _, code := admin(t, bin, env, "", "tokens", "create", "--for", "alice", "--agent", "claude")
	personToken, _, code2 := admin(t, bin, env, "", "tokens", "create", "--for", "alice")
	agentToken, personToken = strings.TrimSpace(agentToken), strings.TrimSpace(personToken)
	if code != 0 || code2 != 0 || agentToken == "" || personToken == "" {
		t.Fatal("tokens create failed")
	}
	s := serveWith(t, bin, data, "LEDGER_AUTH=required", "LEDGER_METRICS=emf")

	type call struct {
		method, path, token, cookie, body, contentType string
		headers                                        map[string]string
	}
	do := func(c call) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(c.method, s.base+c.path, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		if c.cookie != "" {
			req.Header.Set("Cookie", c.cookie)
		}
		if c.contentType != "" {
			req.Header.Set("Content-Type", c.contentType)
		}
		for k, v := range c.headers {
			req.Header.Set(k, v)
		}
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	mcpHeaders := map[string]string{"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": "2025-11-25"}
	rpc := func(token, method string, params any) (int, string) {
		p, _ := json.Marshal(params)
		resp, body := do(call{method: "POST", path: "/mcp", token: token, contentType: "application/json", headers: mcpHeaders,
			body: fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, p)})
		return resp.StatusCode, body
	}
	create := func(requestID, workspace, title string) string {
		_, body := rpc(agentToken, "tools/call", map[string]any{"name": "create_ticket",
			"arguments": map[string]any{"request_id": requestID, "workspace": workspace, "title": title}})
		return body
	}

	n := 0
	expect := func(what string, want map[string]any) map[string]any {
		t.Helper()
		n++
		lines := waitLines(t, s, n)
		got := lines[n-1]
		for k, v := range want {
			if fmt.Sprint(got[k]) != fmt.Sprint(v) {
				t.Errorf("%s: %s = %v, want %v (line %v)", what, k, got[k], v, got)
			}
		}
		for _, k := range []string{"request_id", "surface", "route", "status", "latency_ms", "store_requests", "replayed"} {
			if _, ok := got[k]; !ok {
				t.Errorf("%s: the line has no %s: %v", what, k, got)
			}
		}
		return got
	}

	do(call{method: "GET", path: "/healthz"})
	if l := expect("health", map[string]any{"surface": "health", "route": "GET /healthz", "status": 200, "level": "INFO"}); l["store_requests"].(float64) < 1 {
		t.Errorf("health asked the store nothing: %v", l)
	}
	rpc("", "initialize", map[string]any{})
	expect("mcp without a credential", map[string]any{"surface": "mcp", "status": 401, "level": "INFO"})
	rpc(agentToken, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
	expect("initialize", map[string]any{"surface": "mcp", "mcp_method": "initialize", "author": "ai:claude", "on_behalf_of": "human:alice", "status": 200})
	rpc(agentToken, "tools/list", map[string]any{})
	expect("tools/list", map[string]any{"mcp_method": "tools/list", "status": 200})
	if body := create("obs-1", "inbox", "first"); !strings.Contains(body, `"replayed":false`) {
		t.Fatalf("create: %s", body)
	}
	if l := expect("create", map[string]any{"mcp_method": "tools/call", "tool": "create_ticket", "author": "ai:claude", "on_behalf_of": "human:alice", "replayed": false}); l["store_requests"].(float64) < 1 {
		t.Errorf("a create made no store request: %v", l)
	}
	create("obs-1", "inbox", "first")
	expect("replay", map[string]any{"tool": "create_ticket", "replayed": true})
	create("obs-1", "inbox", "another title")
	expect("mismatch", map[string]any{"tool": "create_ticket", "error_code": "request_id_reused", "replayed": false})
	create("obs-2", "reference", "refused")
	expect("policy refusal", map[string]any{"tool": "create_ticket", "error_code": "forbidden"})
	_, body := rpc(agentToken, "tools/call", map[string]any{"name": "get_ticket", "arguments": map[string]any{"id": "inbox-1"}})
	if !strings.Contains(body, "inbox-1") {
		t.Fatalf("get_ticket: %s", body)
	}
	expect("read", map[string]any{"tool": "get_ticket", "replayed": false, "status": 200})

	rest := call{method: "POST", path: "/api/v1/workspaces/inbox/tickets", token: personToken, contentType: "application/json",
		body: `{"title":"over REST"}`, headers: map[string]string{"Idempotency-Key": "obs-rest-1"}}
	if resp, body := do(rest); resp.StatusCode != 201 {
		t.Fatalf("REST create: %d %s", resp.StatusCode, body)
	}
	expect("rest create", map[string]any{"surface": "rest", "route": "POST /api/v1/workspaces/{slug}/tickets", "author": "human:alice", "status": 201, "replayed": false})
	do(rest)
	expect("rest replay", map[string]any{"surface": "rest", "status": 201, "replayed": true})

	imp := call{method: "POST", path: "/api/v1/workspaces/inbox/imports", token: personToken, contentType: "application/json",
		body: `{"tickets":[{"title":"imported one"},{"title":"imported two"}]}`, headers: map[string]string{"Idempotency-Key": "obs-import-1"}}
	if resp, body := do(imp); resp.StatusCode != 202 {
		t.Fatalf("REST import: %d %s", resp.StatusCode, body)
	}
	if l := expect("rest import", map[string]any{"surface": "rest", "route": "POST /api/v1/workspaces/{slug}/imports", "status": 202}); l["task_id"] == nil || l["task_id"] == "" {
		t.Errorf("an import's line names no task: %v", l)
	}

	resp, _ := do(call{method: "POST", path: "/signin", contentType: "application/x-www-form-urlencoded",
		body: url.Values{"handle": {"alice"}, "password": {password}}.Encode()})
	expect("sign-in", map[string]any{"surface": "web", "route": "POST /signin", "status": resp.StatusCode})
	var cookie string
	for _, c := range resp.Cookies() {
		cookie = c.Name + "=" + c.Value
	}
	if cookie == "" || resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d, no cookie", resp.StatusCode)
	}
	if resp, _ := do(call{method: "GET", path: "/w/inbox", cookie: cookie}); resp.StatusCode != 200 {
		t.Fatalf("board page: %d", resp.StatusCode)
	}
	expect("board page", map[string]any{"surface": "web", "route": "GET /w/inbox", "author": "human:alice", "status": 200})

	if resp, _ := do(call{method: "GET", path: "/tickets/inbox-999", cookie: cookie}); resp.StatusCode != 404 {
		t.Fatalf("missing ticket page: %d", resp.StatusCode)
	}
	expect("board error page", map[string]any{"surface": "web", "route": "GET /tickets/inbox-999", "status": 404, "error_code": "not_found"})

	// A board form posted twice (a double click, a resubmitted form): the
	// second line says replayed, as MCP's and REST's do.
	form := url.Values{"request_id": {"obs-form-1"}, "title": {"from the board"}}.Encode()
	for i, replayed := range []bool{false, true} {
		resp, _ := do(call{method: "POST", path: "/w/inbox/tickets", cookie: cookie, contentType: "application/x-www-form-urlencoded", body: form})
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("board form post %d: %d", i+1, resp.StatusCode)
		}
		expect("board form post", map[string]any{"surface": "web", "route": "POST /w/inbox/tickets", "author": "human:alice", "status": 303, "replayed": replayed})
	}

	do(call{method: "GET", path: "/.well-known/oauth-authorization-server"})
	expect("oauth metadata", map[string]any{"surface": "oauth", "route": "GET /.well-known/oauth-authorization-server", "status": 200})
	const authCode, verifier = "tlc_not-a-real-code-but-secret", "verifier-secret-0123456789-abcdefghijklmnopqrstuvwxyz"
	do(call{method: "POST", path: "/oauth/token", contentType: "application/x-www-form-urlencoded",
		body: url.Values{"grant_type": {"authorization_code"}, "code": {authCode}, "code_verifier": {verifier}, "client_id": {"nobody"}}.Encode()})
	expect("oauth token", map[string]any{"surface": "oauth", "route": "POST /oauth/token"})

	all := s.stderr.String() + s.stdout.String()
	sessionValue := cookie[strings.Index(cookie, "=")+1:]
	for what, secret := range map[string]string{"agent token": agentToken, "person token": personToken, "password": password,
		"session cookie": sessionValue, "authorization code": authCode, "code verifier": verifier} {
		if strings.Contains(all, secret) {
			t.Errorf("the %s appears in the server's output", what)
		}
	}

	// One EMF line per request, each valid, with the request's id.
	lines := requestLines(t, s.stderr.String())
	deadline := time.Now().Add(10 * time.Second)
	var emf []obstest.EMF
	for {
		emf = emf[:0]
		for _, l := range strings.Split(strings.TrimSpace(s.stdout.String()), "\n") {
			if l == "" {
				continue
			}
			e, err := obstest.ParseEMF([]byte(l))
			if err != nil {
				t.Fatalf("stdout has a line that is not valid EMF (%v): %s", err, l)
			}
			emf = append(emf, e)
		}
		if len(emf) >= len(lines) || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(emf) != len(lines) {
		t.Fatalf("%d EMF lines for %d requests", len(emf), len(lines))
	}
	// Matched by request id: each line is written when its request ends.
	byID := map[any]obstest.EMF{}
	for _, e := range emf {
		byID[e.Members["request_id"]] = e
	}
	metricsOf := func(i int) obstest.EMF {
		e, ok := byID[lines[i]["request_id"]]
		if !ok {
			t.Fatalf("no EMF line for request %v", lines[i]["request_id"])
		}
		return e
	}
	for i := range lines {
		metricsOf(i)
	}
	if replay := metricsOf(5); replay.Members[obs.DimOperation] != "create_ticket" || replay.Value(obs.MetricReplays) != 1 {
		t.Errorf("the replay's metrics: %v", replay.Members)
	}
	if metricsOf(6).Value(obs.MetricMismatches) != 1 || metricsOf(7).Value(obs.MetricPolicyRefusals) != 1 {
		t.Errorf("mismatch and refusal metrics: %v %v", metricsOf(6).Members, metricsOf(7).Members)
	}
}
