package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
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
