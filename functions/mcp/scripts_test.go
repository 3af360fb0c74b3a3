package main

import (
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// runSmoke runs scripts/smoke.sh against base with token; it returns the
// output and the exit code.
func runSmoke(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{"../../scripts/smoke.sh"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return string(out), 0
}

// scripts/smoke.sh, as docs/aws.md says to run it after sam deploy, against the
// local server in required mode with a token the admin command made: every
// check passes with a person's token (which creates the workspace smoke),
// again with an agent's token and python3 reading the JSON instead of jq
// (the workspace exists by then); a bad token fails the checks that need
// it, and the script exits non-zero.
func TestSmokeScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	for _, tool := range []string{"bash", "curl", "jq", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("scripts/smoke.sh needs %s: %v", tool, err)
		}
	}
	bin := buildServer(t)
	data := t.TempDir()
	env := []string{"LEDGER_DATA=" + data, "LEDGER_STORE=sqlite", "LEDGER_ADDR=127.0.0.1:8080", "LEDGER_BASE_URL="}
	if _, errOut, code := admin(t, bin, env, "a long enough password\n", "people", "add", "alice", "--admin", "--password-stdin"); code != 0 {
		t.Fatalf("people add: %s", errOut)
	}
	token := func(args ...string) string {
		out, errOut, code := admin(t, bin, env, "", append([]string{"tokens", "create", "--for", "alice"}, args...)...)
		if code != 0 || tokenLine.FindStringSubmatch(out) == nil {
			t.Fatalf("tokens create: %d %s", code, errOut)
		}
		return strings.TrimSpace(out)
	}
	s := serveWith(t, bin, data, "LEDGER_AUTH=required")
	checks := []string{"health:", "auth:", "oauth: protected resource metadata", "oauth: authorization server metadata",
		"mcp: initialize", "mcp: server/discover", "mcp: tools/list", "workspace:", "write: create_ticket",
		"exactly once:", "find_request:", "read: get_ticket", "read: GET /api/v1/tickets/"}
	passes := func(t *testing.T, out string) {
		t.Helper()
		for _, c := range checks {
			if !strings.Contains(out, "PASS  "+c) {
				t.Errorf("no PASS for %q", c)
			}
		}
		if strings.Contains(out, "FAIL") || !strings.Contains(out, "smoke: 13 passed, 0 failed") {
			t.Errorf("output:\n%s", out)
		}
	}

	// jq is named, not defaulted to: without jq the script would fall back
	// to python3 and this case would not test what it says.
	t.Run("person token, jq", func(t *testing.T) {
		out, code := runSmoke(t, []string{"SMOKE_JSON=jq"}, s.base, token())
		if code != 0 {
			t.Errorf("exit %d", code)
		}
		passes(t, out)
		if !strings.Contains(out, "PASS  workspace: smoke created over REST") {
			t.Errorf("the first run did not create the workspace:\n%s", out)
		}
	})
	t.Run("agent token, McpUrl, python3", func(t *testing.T) {
		out, code := runSmoke(t, []string{"SMOKE_JSON=python3"}, s.base+"/mcp", token("--agent", "smoke"))
		if code != 0 {
			t.Errorf("exit %d", code)
		}
		passes(t, out)
		if !strings.Contains(out, "PASS  workspace: smoke exists") {
			t.Errorf("the second run did not find the workspace:\n%s", out)
		}
	})
	t.Run("bad token fails", func(t *testing.T) {
		out, code := runSmoke(t, nil, s.base, "tl_"+strings.Repeat("x", 43))
		if code != 1 {
			t.Errorf("exit %d with a bad token, want 1", code)
		}
		for _, c := range []string{"FAIL  mcp initialize: answered 401", "FAIL  write create_ticket", "FAIL  exactly once", "PASS  health:"} {
			if !strings.Contains(out, c) {
				t.Errorf("no %q in:\n%s", c, out)
			}
		}
		if strings.Contains(out, "0 failed") {
			t.Errorf("a bad token reported no failure:\n%s", out)
		}
	})
	t.Run("usage", func(t *testing.T) {
		if out, code := runSmoke(t, nil, s.base); code != 2 || !strings.Contains(out, "usage:") {
			t.Errorf("one argument: exit %d, %s", code, out)
		}
	})
}

var (
	localAWSToken = regexp.MustCompile(`API token \(ai:claude for admin, shown once\): (tl_[A-Za-z0-9_-]{43})\n`)
	localAWSLogin = regexp.MustCompile(`board sign-in: admin / (\S+)`)
)

// scripts/local-aws.sh (make local-aws) against a running endpoint, the
// way a person with DynamoDB Local runs it: it creates the table, makes
// the admin and a token on it and prints the sam local and claude lines;
// run again it keeps the admin and makes another token. Each token works
// against the binary serving that table in required mode, as the function
// under sam local would. Docker and sam are not here: that part is
// docs/aws.md's, not this test's.
func TestLocalAWSScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	endpoint := testbackends.MotoEndpoint(t)
	bin := buildServer(t)
	table := testbackends.TableName()
	run := func() string {
		t.Helper()
		cmd := exec.Command("bash", "../../scripts/local-aws.sh")
		cmd.Env = append(os.Environ(), "ENDPOINT="+endpoint, "LOCAL_AWS_ONCE=1", "LOCAL_AWS_TABLE="+table, "LEDGER_BIN="+bin)
		out, err := cmd.Output()
		if err != nil {
			var stderr string
			if exit, ok := err.(*exec.ExitError); ok {
				stderr = string(exit.Stderr)
			}
			t.Fatalf("local-aws.sh: %v\n%s\n%s", err, out, stderr)
		}
		return string(out)
	}
	first := run()
	for _, want := range []string{"Table " + table + " on " + endpoint + " is ready.",
		"sam build && sam local start-api --env-vars infra/env.json",
		"claude mcp add --transport http ticket-ledger-local http://127.0.0.1:3000/mcp --header \"Authorization: Bearer tl_"} {
		if !strings.Contains(first, want) {
			t.Errorf("local-aws.sh printed no %q:\n%s", want, first)
		}
	}
	login := localAWSLogin.FindStringSubmatch(first)
	if login == nil || login[1] == "(unchanged)" {
		t.Fatalf("the first run names no new admin password:\n%s", first)
	}
	second := run()
	if !strings.Contains(second, "admin / (unchanged)") {
		t.Errorf("the second run should keep the admin:\n%s", second)
	}
	s := serveWith(t, bin, t.TempDir(), "LEDGER_AUTH=required", "LEDGER_STORE=dynamodb", "LEDGER_TABLE="+table,
		"DYNAMODB_ENDPOINT="+endpoint, "LEDGER_DYNAMODB_SERIALIZE_WRITES=1", "AWS_ACCESS_KEY_ID=local",
		"AWS_SECRET_ACCESS_KEY=local", "AWS_REGION=us-east-1")
	for i, out := range []string{first, second} {
		m := localAWSToken.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("run %d printed no token:\n%s", i+1, out)
		}
		cs := bearerSession(t, s.base, m[1], "2025-11-25")
		res := bearerCall(t, cs, "list_workspaces", nil)
		if res.IsError {
			t.Fatalf("run %d's token: list_workspaces refused: %v", i+1, res.Content)
		}
	}
}

// docs/aws.md's x86 route for sam local where Docker cannot emulate arm64: the
// template with x86_64 in place of arm64 changes every function and
// nothing else (the agents' and the board's, the worker, the word
// index's consumer and the webhooks' fan-out and sender),
// and LAMBDA_GOARCH=amd64 makes sam's build commands build for it (the
// deployed default stays arm64).
func TestLocalX86Route(t *testing.T) {
	tpl, err := os.ReadFile("../../template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	x86 := strings.ReplaceAll(string(tpl), "Architectures: [arm64]", "Architectures: [x86_64]")
	if n := strings.Count(string(tpl), "Architectures: [arm64]"); n != 6 || strings.Contains(x86, "arm64]") {
		t.Fatalf("template.yaml has %d `Architectures: [arm64]` lines, want 6 (the agents' and the board's functions, the worker, the indexer and the webhooks' fan-out and sender), all replaced", n)
	}
	for _, c := range []struct{ goarch, want string }{{"", "GOARCH=arm64 "}, {"amd64", "GOARCH=amd64 "}} {
		for _, target := range []string{"build-McpFunction", "build-WebFunction", "build-WorkerFunction", "build-IndexerFunction", "build-WebhookFanoutFunction", "build-WebhookSenderFunction"} {
			args := []string{"-n", "-C", "../..", target, "ARTIFACTS_DIR=/tmp/x"}
			if c.goarch != "" {
				args = append(args, "LAMBDA_GOARCH="+c.goarch)
			}
			out, err := exec.Command("make", args...).CombinedOutput()
			if err != nil || !strings.Contains(string(out), c.want) {
				t.Errorf("make %v: %v\n%s\nwant %q", args, err, out, c.want)
			}
		}
	}
}
