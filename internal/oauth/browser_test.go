package oauth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ticket-ledger/ticket-ledger/internal/oauth"
	"github.com/ticket-ledger/ticket-ledger/internal/testrequire"
)

// outputDir holds the screenshots the browser test takes (gitignored).
const outputDir = "../../test-output"

// browserPath finds Debian's chromium-headless-shell: missing, the test
// fails under `make test` and is skipped by plain `go test`.
func browserPath(t *testing.T) string {
	return testrequire.Browser(t)
}

// In a real browser: an app sends the person to the approval link; they
// sign in, see the page, name the agent and allow; the browser lands on
// the app's loopback callback with the code. Browsers apply the page's
// form-action to the redirect that follows a form, so this proves the
// approval page lets the browser go back to the app (and nowhere else it
// names), and that htmx does not swallow the cross-origin redirect.
func TestApprovalInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a real browser; skipped with -short")
	}
	exe := browserPath(t)
	e := newEnv(t, "sqlite", oauth.FetchConfig{})
	landed := make(chan url.Values, 2)
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/callback" {
			landed <- r.URL.Query()
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<!doctype html><title>app</title><p id="app">back in the app</p>`))
	}))
	defer app.Close()
	clientID := e.register("Claude", "http://127.0.0.1/callback")
	port := app.URL[strings.LastIndex(app.URL, ":"):]
	redirect := "http://127.0.0.1" + port + "/callback"
	p := newPKCE()
	link := e.url + oauth.PathAuthorize + "?" + authRequest(clientID, redirect, p, "browser-state", e.url+"/mcp").Encode()

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.WindowSize(1000, 900))...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	run := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, steps...); err != nil {
			dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			html, _ := chromedp.Run(dctx, chromedp.OuterHTML(chromedp.CSS("body")))
			where, _ := chromedp.Run(dctx, chromedp.Location())
			t.Fatalf("%s: %v\nat %s:\n%s", what, err, where, html)
		}
	}
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	run("sign in from the approval link",
		chromedp.Navigate(link),
		chromedp.WaitVisible(css(`input[name="handle"]`)),
		chromedp.SendKeys(css(`input[name="handle"]`), "alice"),
		chromedp.SendKeys(css(`input[name="password"]`), testPassword),
		chromedp.Submit(css(`input[name="password"]`)),
		chromedp.WaitVisible(css(`input[name="agent_name"]`)),
	)
	heading, err := chromedp.Run(ctx, chromedp.Text(css("h1")))
	if err != nil || heading != "Connect Claude?" {
		t.Fatalf("approval page heading %q (%v)", heading, err)
	}
	agent, err := chromedp.Run(ctx, chromedp.Value(css(`input[name="agent_name"]`)))
	if err != nil || agent != "claude" {
		t.Fatalf("the suggested agent name %q (%v), want claude", agent, err)
	}
	if err := os.MkdirAll(outputDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
		os.WriteFile(filepath.Join(outputDir, "oauth-approval.png"), buf, 0o644)
	}
	run("allow", chromedp.Click(css(`button[value="allow"]`)), chromedp.WaitVisible(css(`#app`)))
	var q url.Values
	select {
	case q = <-landed:
	case <-time.After(10 * time.Second):
		t.Fatal("the browser never reached the app's callback")
	}
	if q.Get("state") != "browser-state" || q.Get("iss") != e.url || q.Get("code") == "" {
		t.Fatalf("the app received %v", q)
	}
	r := e.postForm(oauth.PathToken, url.Values{"grant_type": {"authorization_code"}, "code": {q.Get("code")}, "redirect_uri": {redirect},
		"client_id": {clientID}, "code_verifier": {p.verifier}}, nil)
	wantStatus(t, "the code the browser carried", r, http.StatusOK)

	// Deny: the browser goes back with access_denied.
	link = e.url + oauth.PathAuthorize + "?" + authRequest(clientID, redirect, newPKCE(), "deny-state", "").Encode()
	run("deny", chromedp.Navigate(link), chromedp.WaitVisible(css(`button[value="deny"]`)), chromedp.Click(css(`button[value="deny"]`)),
		chromedp.WaitVisible(css(`#app`)))
	select {
	case q = <-landed:
	case <-time.After(10 * time.Second):
		t.Fatal("the browser never reached the app's callback after deny")
	}
	if q.Get("error") != "access_denied" || q.Get("state") != "deny-state" || q.Get("code") != "" {
		t.Fatalf("after deny the app received %v", q)
	}
}
