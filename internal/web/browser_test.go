package web_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/testrequire"
)

// outputDir holds the screenshots the browser test takes (gitignored).
const outputDir = "../../test-output"

// browserPath finds Debian's chromium-headless-shell: missing, the test
// fails under `make test` and is skipped by plain `go test`.
func browserPath(t *testing.T) string {
	return testrequire.Browser(t)
}

// TestBrowser drives the board in a real browser: sign in, create, move,
// note, a ticket from MCP, an inert XSS title, a double-clicked create, and
// an admin hiding a workspace from MCP. It runs on SQLite, and on DynamoDB
// (minidyn) as well.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a real browser; skipped with -short")
	}
	exe := browserPath(t)
	eachStore(t, func(t *testing.T, backend string) {
		if backend == "moto" {
			t.Skip("the browser scenarios run on SQLite and minidyn; moto adds nothing a browser can see")
		}
		runBrowserScenarios(t, exe, backend)
	})
}

func runBrowserScenarios(t *testing.T, exe, backend string) {
	e := newEnv(t, backend, auth.ModeRequired)
	e.addPerson("alice", board.RoleAdmin)
	agentURL := e.serveMode(e.store, auth.ModeLoopback) // MCP as ai:agent, same store
	agent := mcpClient(t, agentURL)
	ctx := openBrowser(t, exe, 1280, 900)

	// postsSent counts the POSTs the page sends (the browser's own count,
	// from its network events), to wait for the server to have answered
	// each (env.postsDone) instead of guessing a time.
	var postsSent atomic.Int64
	go func() {
		for ev, err := range chromedp.Events(ctx, network.RequestWillBeSent) {
			if err != nil {
				return
			}
			if ev.Request.Method == "POST" {
				postsSent.Add(1)
			}
		}
	}()
	var dialogs atomic.Int32
	go func() {
		for ev, err := range chromedp.Events(ctx, page.JavascriptDialogOpening) {
			if err != nil {
				return
			}
			dialogs.Add(1)
			t.Logf("dialog opened: %s", ev.Message)
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	run := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, steps...); err != nil {
			// What the page shows, for whoever reads the failure.
			dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			html, _ := chromedp.Run(dctx, chromedp.OuterHTML(chromedp.CSS("main")))
			where, _ := chromedp.Run(dctx, chromedp.Location())
			t.Fatalf("%s: %v\nat %s:\n%s", what, err, where, html)
		}
	}
	get := func(what string, a chromedp.Action[string]) string {
		t.Helper()
		v, err := chromedp.Run(ctx, a)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
	shot := func(name string) {
		t.Helper()
		screenshot(t, ctx, backend, name)
	}
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }

	// Sign in: the board sends us to the form, which brings us back.
	run("sign in",
		chromedp.Navigate(e.url+"/w/inbox"),
		chromedp.WaitVisible(css(`input[name="handle"]`)),
		chromedp.SendKeys(css(`input[name="handle"]`), "alice"),
		chromedp.SendKeys(css(`input[name="password"]`), testPassword),
		chromedp.Submit(css(`input[name="password"]`)),
		chromedp.WaitVisible(css(`#board`)),
	)
	loc, text := get("location", chromedp.Location()), get("me", chromedp.Text(css(`.me`)))
	if !strings.HasSuffix(loc, "/w/inbox") || !strings.Contains(text, "human:alice") {
		t.Fatalf("after sign-in: at %s as %q", loc, text)
	}

	// Create a ticket on the board (htmx swaps the ticket page in).
	run("create a ticket",
		chromedp.Click(css(`#new-ticket summary`)),
		chromedp.SendKeys(css(`#new-ticket input[name="title"]`), "Write the release notes"),
		chromedp.SendKeys(css(`#new-ticket textarea[name="body"]`), "Cover the **new board** and the admin commands."),
		chromedp.SendKeys(css(`#new-ticket input[name="tags"]`), "docs"),
		chromedp.Click(css(`#create-ticket`)),
		chromedp.WaitVisible(css(`#notes-h`)),
	)
	loc, text = get("location", chromedp.Location()), get("title", chromedp.Text(css(`h1`)))
	if !strings.HasSuffix(loc, "/tickets/inbox-1") || !strings.Contains(text, "Write the release notes") {
		t.Fatalf("after create: at %s, title %q", loc, text)
	}

	// Move it between columns from its card on the board.
	run("move it",
		chromedp.Navigate(e.url+"/w/inbox"),
		chromedp.WaitVisible(css(`#card-inbox-1`)),
		chromedp.Click(css(`#card-inbox-1 details.move summary`)),
		chromedp.SetValue(css(`#card-inbox-1 select[name="status"]`), "doing"),
		chromedp.SendKeys(css(`#card-inbox-1 input[name="reason"]`), "drafting"),
		chromedp.Click(css(`#card-inbox-1 form button`)),
		chromedp.WaitVisible(css(`section[aria-labelledby="col-doing"] #card-inbox-1`)),
	)

	// Add a note and see its Markdown rendered.
	run("add a note",
		chromedp.Navigate(e.url+"/tickets/inbox-1"),
		chromedp.WaitVisible(css(`#notes textarea[name="body"]`)),
		chromedp.SendKeys(css(`#notes textarea[name="body"]`), "First draft is **done**; see `notes.md`."),
		chromedp.Click(css(`#notes button`)),
		chromedp.WaitVisible(css(`.note strong`)),
	)
	text = get("note", chromedp.Text(css(`.note strong`)))
	if text != "done" {
		t.Fatalf("rendered note: %q", text)
	}

	// A ticket created over MCP appears on the board.
	res, err := agent.CallTool(ctx, &mcp.CallToolParams{Name: "create_ticket", Arguments: map[string]any{
		"request_id": "agent-1", "workspace": "inbox", "title": "Check links in the docs", "owner": "ai:agent", "priority": "high"}})
	if err != nil || res.IsError {
		t.Fatalf("create_ticket over MCP: %v %+v", err, res)
	}
	run("the agent's ticket",
		chromedp.Navigate(e.url+"/w/inbox"),
		chromedp.WaitVisible(css(`#card-inbox-2`)),
	)
	text = get("card", chromedp.Text(css(`#card-inbox-2`)))
	if !strings.Contains(text, "Check links in the docs") || !strings.Contains(text, "ai:agent") {
		t.Fatalf("the agent's card: %q", text)
	}

	// An XSS title renders as text: no dialog, no image element.
	const xss = `<img src=x onerror=alert(1)>`
	run("XSS title",
		chromedp.Click(css(`#new-ticket summary`)),
		chromedp.SendKeys(css(`#new-ticket input[name="title"]`), xss),
		chromedp.Click(css(`#create-ticket`)),
		chromedp.WaitVisible(css(`#notes-h`)),
	)
	text = get("title", chromedp.Text(css(`h1`)))
	run("board with the XSS title", chromedp.Navigate(e.url+"/w/inbox"), chromedp.WaitVisible(css(`#card-inbox-3`)),
		chromedp.Sleep(300*time.Millisecond)) // time for a would-be onerror to fire
	imgs, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('main img').length`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, xss) || imgs != 0 || dialogs.Load() != 0 {
		t.Fatalf("XSS title: heading %q, %d img elements, %d dialogs", text, imgs, dialogs.Load())
	}

	// A double-clicked create makes one ticket. Both clicks are sent before
	// the page changes; once every POST the browser sent has been answered
	// (its count against the server's, polled with a deadline), a second
	// submission, if any, has been handled.
	before := e.ticketCount("inbox")
	sentBefore, doneBefore := postsSent.Load(), e.postsDone.Load()
	run("double click",
		chromedp.Click(css(`#new-ticket summary`)),
		chromedp.SendKeys(css(`#new-ticket input[name="title"]`), "Clicked twice in a hurry"),
		chromedp.DoubleClick(css(`#create-ticket`)),
		chromedp.WaitVisible(css(`#notes-h`)),
	)
	deadline := time.Now().Add(10 * time.Second)
	for postsSent.Load()-sentBefore != e.postsDone.Load()-doneBefore || postsSent.Load() == sentBefore {
		if time.Now().After(deadline) {
			t.Fatalf("double click: the browser sent %d POSTs, the server answered %d within 10 s",
				postsSent.Load()-sentBefore, e.postsDone.Load()-doneBefore)
		}
		time.Sleep(10 * time.Millisecond) // the poll's interval
	}
	t.Logf("double click: %d POSTs sent and answered", postsSent.Load()-sentBefore)
	if n := e.ticketCount("inbox"); n != before+1 {
		t.Fatalf("double-clicked create: %d tickets, want %d", n, before+1)
	}

	// Screenshots of the board and a ticket, for people to look at.
	run("board for the screenshot", chromedp.Navigate(e.url+"/w/inbox"), chromedp.WaitVisible(css(`#board`)))
	shot("board.png")
	run("a search that finds nothing", chromedp.Navigate(e.url+"/w/inbox?q=nothing+like+this"), chromedp.WaitVisible(css(`#no-match`)))
	shot("board-no-match.png")
	run("ticket for the screenshot", chromedp.Navigate(e.url+"/tickets/inbox-1"), chromedp.WaitVisible(css(`.note`)))
	shot("ticket.png")
	run("the board's Activity link", chromedp.Navigate(e.url+"/w/inbox"), chromedp.WaitVisible(css(`#board`)),
		chromedp.Click(css(`.title-row a[href="/w/inbox/activity"]`)), chromedp.WaitVisible(css(`#activity-list li time`)))
	shot("activity.png")
	run("phone", chromedp.EmulateViewport(390, 844), chromedp.Navigate(e.url+"/w/inbox"), chromedp.WaitVisible(css(`#board`)))
	shot("board-phone.png")
	run("laptop", chromedp.EmulateViewport(1280, 900))

	// An admin hides a workspace: MCP's list_workspaces no longer shows it.
	listed := func() []string {
		res, err := agent.CallTool(ctx, &mcp.CallToolParams{Name: "list_workspaces", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("list_workspaces: %v %+v", err, res)
		}
		var out board.WorkspacesResult
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
		var slugs []string
		for _, w := range out.Workspaces {
			slugs = append(slugs, w.Slug)
		}
		return slugs
	}
	if got := strings.Join(listed(), ","); got != "inbox,reference" {
		t.Fatalf("list_workspaces before = %s", got)
	}
	run("hide reference",
		chromedp.Navigate(e.url+"/w/reference/settings"),
		chromedp.WaitVisible(css(`input[value="hidden"]`)),
		chromedp.Click(css(`input[value="hidden"]`)),
		chromedp.Click(css(`main form button`)),
		chromedp.WaitVisible(css(`#board`)),
	)
	text = get("policy", chromedp.Text(css(`.title-row .policy`)))
	if text != "hidden from AI" {
		t.Fatalf("reference's label after hiding: %q", text)
	}
	if got := strings.Join(listed(), ","); got != "inbox" {
		t.Fatalf("list_workspaces after an admin hid reference = %s, want inbox", got)
	}
	run("home lists it for people", chromedp.Navigate(e.url+"/"), chromedp.WaitVisible(css(`a[href="/w/reference"]`)))
	shot("home.png")
}
