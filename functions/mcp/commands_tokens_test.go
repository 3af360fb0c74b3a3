package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// admin runs one admin command of the built binary.
func admin(t *testing.T, bin string, env []string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

var tokenLine = regexp.MustCompile(`^(tl_[A-Za-z0-9_-]{43})\n$`)

// The token commands of the binary, and its tokens against the same binary
// serving in required mode: REST and MCP (the go-sdk client, both protocol
// revisions) as the agent the token names, ai_policy on that agent, a
// revocation by the command (another process) stopping the token at the
// next call, and no token in either process's output but the one stdout
// line that shows it.
func TestTokensEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := buildServer(t)
	data := t.TempDir()
	env := []string{"LEDGER_DATA=" + data, "LEDGER_STORE=sqlite", "LEDGER_ADDR=127.0.0.1:8080", "LEDGER_BASE_URL="}
	if _, errOut, code := admin(t, bin, env, "a long enough password\n", "people", "add", "alice", "--password-stdin"); code != 0 {
		t.Fatalf("people add: %d %s", code, errOut)
	}
	out, errOut, code := admin(t, bin, env, "", "tokens", "create", "--for", "alice", "--agent", "claude", "--label", "Claude Code")
	m := tokenLine.FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("tokens create: exit %d, stdout %q, stderr %q; want the token alone on stdout", code, out, errOut)
	}
	agentToken := m[1]
	if strings.Contains(errOut, agentToken[3:]) || !strings.Contains(errOut, "ai:claude for human:alice") {
		t.Fatalf("tokens create's stderr: %q", errOut)
	}
	out, _, _ = admin(t, bin, env, "", "tokens", "create", "--for=alice")
	ownToken := strings.TrimSpace(out)
	out, _, code = admin(t, bin, env, "", "tokens", "list")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !regexp.MustCompile(`^[0-9a-f]{16}\talice\tai:claude\tactive\t\S+\tnever\tClaude Code$`).MatchString(lines[0]) {
		t.Fatalf("tokens list: exit %d\n%s", code, out)
	}
	agentID := strings.Split(lines[0], "\t")[0]
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"tokens"}, 2, "usage"},
		{[]string{"tokens", "create"}, 2, "--for"},
		{[]string{"tokens", "create", "--for", "alice", "--wat"}, 2, "unknown option"},
		{[]string{"tokens", "revoke"}, 2, "id"},
		{[]string{"tokens", "create", "--for", "nobody"}, 1, "no person"},
		{[]string{"tokens", "create", "--for", "alice", "--agent", "two words"}, 1, "agent name"},
		{[]string{"tokens", "revoke", "0000000000000000"}, 1, "no API token"},
	} {
		out, errOut, code := admin(t, bin, env, "", c.args...)
		if code != c.code || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, out, errOut, c.code, c.want)
		}
	}

	// The same binary, serving in required mode, logging at debug.
	srv, logs := serveRequired(t, bin, data)
	rest := func(method, path, token, key string, body any) (int, []byte) {
		t.Helper()
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, srv+path, rd)
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, raw
	}
	if code, _ := rest("GET", "/api/v1/workspaces", "", "", nil); code != http.StatusUnauthorized {
		t.Fatalf("REST without a token: %d", code)
	}
	code, raw := rest("POST", "/api/v1/workspaces/inbox/tickets", agentToken, "e2e-rest-1", map[string]any{"title": "from curl"})
	var tr board.TicketResult
	json.Unmarshal(raw, &tr)
	if code != http.StatusCreated || tr.Ticket.CreatedBy != "ai:claude" {
		t.Fatalf("REST create as the agent: %d %s", code, raw)
	}
	if code, raw := rest("POST", "/api/v1/workspaces/reference/tickets", agentToken, "e2e-rest-2", map[string]any{"title": "no"}); code != http.StatusForbidden {
		t.Fatalf("REST create in reference as the agent: %d %s", code, raw)
	}
	if code, raw := rest("POST", "/api/v1/workspaces/reference/tickets", ownToken, "e2e-rest-3", map[string]any{"title": "alice may"}); code != http.StatusCreated {
		t.Fatalf("REST create in reference as alice: %d %s", code, raw)
	}
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		cs := bearerSession(t, srv, agentToken, version)
		res := bearerCall(t, cs, "create_ticket", map[string]any{"request_id": "e2e-mcp-" + version, "workspace": "inbox", "title": "from Claude " + version})
		var created board.TicketResult
		decodeStructured(t, res, &created)
		if created.Ticket.CreatedBy != "ai:claude" {
			t.Fatalf("%s: created_by %q", version, created.Ticket.CreatedBy)
		}
		res = bearerCall(t, cs, "get_ticket", map[string]any{"id": created.Ticket.ID})
		var detail board.TicketDetail
		decodeStructured(t, res, &detail)
		if len(detail.History) != 1 || detail.History[0].Author != "ai:claude" || detail.History[0].OnBehalfOf != "human:alice" ||
			detail.History[0].Source != board.SourceMCP {
			t.Fatalf("%s: history %+v, want ai:claude for human:alice over MCP", version, detail.History)
		}
		res = bearerCall(t, cs, "create_ticket", map[string]any{"request_id": "e2e-ro-" + version, "workspace": "reference", "title": "no"})
		if !res.IsError {
			t.Fatalf("%s: an agent wrote in the read-only workspace", version)
		}
		res = bearerCall(t, cs, "list_workspaces", map[string]any{})
		var ws board.WorkspacesResult
		decodeStructured(t, res, &ws)
		if len(ws.Workspaces) != 2 {
			t.Fatalf("%s: the agent lists %d workspaces, want 2 (private is hidden)", version, len(ws.Workspaces))
		}
	}
	// Revoked by the command, another process: the next call is refused.
	if _, errOut, code := admin(t, bin, env, "", "tokens", "revoke", agentID); code != 0 {
		t.Fatalf("tokens revoke: %d %s", code, errOut)
	}
	if code, raw := rest("GET", "/api/v1/workspaces", agentToken, "", nil); code != http.StatusUnauthorized {
		t.Fatalf("REST with the revoked token: %d %s", code, raw)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	if _, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv + "/mcp",
		HTTPClient: &http.Client{Transport: bearerRT{agentToken}}, MaxRetries: -1, DisableStandaloneSSE: true}, nil); err == nil {
		t.Fatal("MCP with the revoked token connected")
	}
	out, _, _ = admin(t, bin, env, "", "tokens", "list", "--for", "alice")
	if !regexp.MustCompile(`(?m)^` + agentID + `\talice\tai:claude\trevoked \S+\t\S+\t\d{4}-\S+\tClaude Code$`).MatchString(out) {
		t.Fatalf("tokens list after the revocation and use:\n%s", out)
	}
	for _, tok := range []string{agentToken, ownToken} {
		if strings.Contains(logs.String(), tok[3:]) {
			t.Fatal("a token is in the server's log")
		}
	}
	if !strings.Contains(logs.String(), `"level":`) { // JSON lines: stderr is a pipe
		t.Fatal("the server logged nothing at debug: the check above saw no log")
	}
}

// serveRequired runs the binary as a local server in required mode on
// data, logging at debug; it returns its base URL and its stderr.
func serveRequired(t *testing.T, bin, data string) (string, *lockedBuffer) {
	t.Helper()
	cmd := exec.Command(bin)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LEDGER_") && !strings.HasPrefix(kv, "DYNAMODB_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "LEDGER_ADDR=127.0.0.1:0", "LEDGER_DATA="+data, "LEDGER_AUTH=required", "LEDGER_STORE=sqlite", "LEDGER_LOG_LEVEL=debug")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	addr := make(chan string, 1)
	var done sync.WaitGroup
	done.Go(func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logs.WriteString(sc.Text() + "\n")
			if m := listeningLine.FindStringSubmatch(sc.Text()); m != nil {
				addr <- strings.TrimSuffix(m[1], "/mcp")
			}
		}
	})
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		done.Wait()
	})
	select {
	case a := <-addr:
		return a, logs
	case <-time.After(30 * time.Second):
		t.Fatalf("the server did not report listening:\n%s", logs.String())
	}
	return "", nil
}

type bearerRT struct{ token string }

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func bearerSession(t *testing.T, base, token, version string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearerRT{token}},
		MaxRetries: -1, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect %s with a token: %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated %s, want %s", got, version)
	}
	return cs
}

func bearerCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func decodeStructured(t *testing.T, res *mcp.CallToolResult, out any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %+v", res.Content)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
}
