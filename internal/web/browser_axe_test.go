package web_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/testrequire"
)

// axePath is axe-core as test-tools installs it (npm ci, test-tools/package.json).
const axePath = "../../test-tools/node_modules/axe-core/axe.min.js"

// axeSource is axe-core's script: missing, the test fails under `make
// test` and is skipped by plain `go test`.
func axeSource(t *testing.T) string {
	b, err := os.ReadFile(axePath)
	if err == nil {
		return string(b)
	}
	testrequire.Missing(t, "test-tools/install.sh installs it; make test runs that first", "axe-core is not installed (%v)", err)
	return ""
}

// axeViolation is what the test reports of one failed rule.
type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// axeResult is what axeScript answers: how many rules passed (a page axe
// could not check passes none) and the violations that count.
type axeResult struct {
	Passed     int            `json:"passed"`
	Violations []axeViolation `json:"violations"`
}

// axeScript runs axe on the page and answers its serious and critical
// violations as JSON, with up to three elements each.
const axeScript = `axe.run(document).then(r => JSON.stringify({passed: r.passes.length, violations: r.violations
  .filter(v => v.impact === 'serious' || v.impact === 'critical')
  .map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ') + ' — ' + n.failureSummary.replace(/\s+/g, ' '))}))}))`

// TestBrowserAxe checks every page of the board with axe-core, in light and
// dark mode: no serious or critical accessibility violation.
func TestBrowserAxe(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a real browser; skipped with -short")
	}
	exe := browserPath(t)
	axe := axeSource(t)
	e := newEnvWithAgents(t, "sqlite")
	e.addPerson("alice", board.RoleAdmin)
	seedBoard(t, e)
	s := startSession(t, exe, e, "sqlite")
	audit := func(scheme, name, path string) {
		t.Helper()
		axeAudit(t, s, axe, scheme, name, path)
	}
	check := func(scheme, name, path, ready string) {
		t.Helper()
		s.colorScheme(scheme)
		s.run(name, chromedp.Navigate(e.url+path), chromedp.WaitVisible(chromedp.CSS(ready)))
		audit(scheme, name, path)
	}
	for _, scheme := range []string{"light", "dark"} {
		check(scheme, "sign-in", "/signin", `input[name="password"]`)
	}
	s.signIn("alice")
	pages := []struct{ name, path, ready string }{
		{"home", "/", `main h1`},
		{"board", "/w/inbox", `#board .cards[data-dnd]`},
		{"ticket", "/tickets/inbox-2", `#history-h`},
		{"people", "/people", `main h1`},
		{"tokens", "/tokens", `main h1`},
		{"settings", "/w/inbox/settings", `main form`},
		{"tasks", "/tasks", `main h1`},
		{"inbox", "/inbox", `main h1`},
		{"agents", "/agents", `main h1`},
	}
	for _, scheme := range []string{"light", "dark"} {
		for _, p := range pages {
			check(scheme, p.name, p.path, p.ready)
		}
	}

	// The pages a write leads to: a new token with its copy button (which
	// its script shows, and which says what it did), and the confirmation
	// asked before revoking it.
	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
	s.colorScheme("light")
	s.run("make a token", chromedp.Navigate(e.url+"/tokens"), chromedp.WaitVisible(css(`input[name="agent"]`)),
		chromedp.SendKeys(css(`input[name="agent"]`), "claude"),
		chromedp.Click(css(`form[action="/tokens"] button`)),
		chromedp.WaitVisible(css(`button[data-copy="new-token"]`)),
		chromedp.Click(css(`button[data-copy="new-token"]`)))
	copied := eval[string](s, "the copy button's message", `document.getElementById('token-copied').textContent`)
	if copied == "" {
		// The clipboard answers asynchronously: wait for its message.
		copied = pollText(s, `document.getElementById('token-copied').textContent`)
	}
	if copied != "Copied." && !strings.HasPrefix(copied, "Selected") {
		t.Errorf("the copy button says %q", copied)
	}
	s.shot("token-copied.png")
	for _, scheme := range []string{"light", "dark"} {
		s.colorScheme(scheme)
		s.run("ask to revoke", chromedp.Navigate(e.url+"/tokens"), chromedp.WaitVisible(css(`form[action$="/revoke"] button.danger`)),
			chromedp.Click(css(`form[action$="/revoke"] button.danger`)), chromedp.WaitVisible(css(`#confirm-action`)))
		audit(scheme, "revoke confirmation", "/tokens/…/revoke")
	}
	s.shot("revoke-confirm.png")
}

// axeAudit checks the page the browser shows with axe (injected once per
// page): it must have checked the page, and find nothing serious.
func axeAudit(t *testing.T, s *session, axe, scheme, name, path string) {
	t.Helper()
	if eval[string](s, "axe on "+name, `typeof axe`) == "undefined" {
		eval[bool](s, "inject axe", axe+";true")
	}
	var found axeResult
	if err := json.Unmarshal([]byte(eval[string](s, "axe on "+name, axeScript, chromedp.EvalAwaitPromise)), &found); err != nil {
		t.Fatalf("axe on %s: %v", name, err)
	}
	if found.Passed < 10 {
		t.Errorf("axe on %s (%s) passed only %d rules: it did not check the page", name, scheme, found.Passed)
	}
	t.Logf("axe on %s (%s): %d rules passed, %d serious or critical violations", name, scheme, found.Passed, len(found.Violations))
	for _, v := range found.Violations {
		t.Errorf("%s (%s), %s: %s %s: %s\n  %s", name, path, scheme, v.Impact, v.ID, v.Help, strings.Join(v.Nodes, "\n  "))
	}
}

// pollText waits up to 10 s for a script's text to be non-empty.
func pollText(s *session, script string) string {
	s.t.Helper()
	sctx, cancel := context.WithTimeout(s.ctx, 15*time.Second)
	defer cancel()
	v, err := chromedp.Run(sctx, chromedp.Poll[string](`(`+script+`) || false`, chromedp.WithPollingTimeout(10*time.Second)))
	if err != nil {
		s.t.Fatalf("waiting for %s: %v", script, err)
	}
	return v
}
