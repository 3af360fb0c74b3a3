package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// TestLiveBoardInBrowser: with a board open, an agent's ticket created and
// then moved over MCP appears and moves on the page within 5 s, with no
// navigation, while what the person typed (the New ticket form, a move
// reason on a card the agent moves) and the scroll position stay; a
// ticket page shows the agent's note the same way. SQLite and minidyn.
func TestLiveBoardInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a real browser; skipped with -short")
	}
	exe := browserPath(t)
	eachStore(t, func(t *testing.T, backend string) {
		if backend == "moto" {
			t.Skip("the browser scenarios run on SQLite and minidyn; moto adds nothing a browser can see")
		}
		runLiveScenario(t, exe, backend)
	})
}

func runLiveScenario(t *testing.T, exe, backend string) {
	e := newEnv(t, backend, auth.ModeLoopback) // the local person on the board, ai:agent on /mcp
	agent := mcpClient(t, e.url)
	ctx := openBrowser(t, exe, 1280, 700)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	run := func(what string, within time.Duration, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, within)
		defer cancel()
		if err := chromedp.Do(sctx, steps...); err != nil {
			dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			html, _ := chromedp.Run(dctx, chromedp.OuterHTML(chromedp.CSS("main")))
			t.Fatalf("%s: %v\n%s", what, err, html)
		}
	}
	eval := func(expr string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return v
	}
	tool := func(name string, args map[string]any) {
		t.Helper()
		res, err := agent.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s over MCP: %v", name, err)
		}
		if res.IsError {
			b, _ := json.Marshal(res.Content)
			t.Fatalf("%s over MCP: %s", name, b)
		}
	}
	shot := func(name string) {
		t.Helper()
		screenshot(t, ctx, backend, name)
	}

	// Enough tickets for the page to scroll; the first is the one whose
	// move form the person starts to fill in.
	for i, title := range []string{"Renew the certificate", "Plan the offsite", "Sort the inbox", "Write the minutes", "Book the room", "Order paper"} {
		tool("create_ticket", map[string]any{"request_id": fmt.Sprintf("seed-%d", i), "workspace": "inbox", "title": title})
	}
	run("open the board", 10*time.Second,
		chromedp.Navigate(e.url+"/w/inbox"),
		chromedp.WaitVisible(css(`#card-inbox-6`)),
		chromedp.Click(css(`#card-inbox-1 details.move summary`)),
		chromedp.SendKeys(css(`#card-inbox-1 input[name="reason"]`), "waiting on the CA"),
		chromedp.Click(css(`#new-ticket summary`)),
		chromedp.SendKeys(css(`#new-ticket input[name="title"]`), "Half-typed title"),
		chromedp.SendKeys(css(`#new-ticket textarea[name="body"]`), "and a body"),
	)
	// A mark only this page's document carries: a reload or a swapped
	// body (htmx navigation) would lose it.
	eval(`document.body.dataset.probe = "this page"; window.scrollTo(0, 80); String(window.scrollY)`)
	scrollY := eval(`String(window.scrollY)`)
	if scrollY == "0" {
		t.Fatal("the board does not scroll at this window size; the scroll position would be kept trivially")
	}

	start := time.Now()
	tool("create_ticket", map[string]any{"request_id": "live-1", "workspace": "inbox", "title": "Check links in the docs", "owner": "ai:agent"})
	run("the agent's new ticket appears", 5*time.Second, chromedp.WaitReady(css(`section[aria-labelledby="col-candidate"] #card-inbox-7`)))
	t.Logf("%s: the created ticket showed %v after the call returned", backend, time.Since(start).Round(time.Millisecond))
	start = time.Now()
	tool("move_ticket", map[string]any{"request_id": "live-2", "id": "inbox-7", "status": "doing", "reason": "on it"})
	run("the agent's ticket moves", 5*time.Second, chromedp.WaitReady(css(`section[aria-labelledby="col-doing"] #card-inbox-7`)))
	t.Logf("%s: the move showed %v after the call returned", backend, time.Since(start).Round(time.Millisecond))
	// A card nobody uses shows the agent's change to it: it is replaced,
	// not kept as it was.
	tool("update_ticket", map[string]any{"request_id": "live-2b", "id": "inbox-2", "title": "Plan the offsite, booked"})
	run("the agent's new title shows", 5*time.Second,
		chromedp.Poll[chromedp.Void](`document.querySelector("#card-inbox-2").textContent.includes("Plan the offsite, booked")`,
			chromedp.WithPollingInterval(50*time.Millisecond)))
	// The card the person is using moves with what they typed in it.
	tool("move_ticket", map[string]any{"request_id": "live-3", "id": "inbox-1", "status": "waiting_human"})
	run("the card in use moves", 5*time.Second, chromedp.WaitReady(css(`section[aria-labelledby="col-waiting_human"] #card-inbox-1`)))

	for what, check := range map[string][2]string{
		"no navigation":           {`document.body.dataset.probe || ""`, "this page"},
		"the address":             {`location.pathname`, "/w/inbox"},
		"the New ticket form":     {`document.getElementById("new-ticket").open ? "open" : "closed"`, "open"},
		"the typed title":         {`document.querySelector('#new-ticket input[name="title"]').value`, "Half-typed title"},
		"the typed body":          {`document.querySelector('#new-ticket textarea[name="body"]').value`, "and a body"},
		"the card's move form":    {`document.querySelector("#card-inbox-1 details.move").open ? "open" : "closed"`, "open"},
		"the typed move reason":   {`document.querySelector('#card-inbox-1 input[name="reason"]').value`, "waiting on the CA"},
		"the scroll position":     {`String(window.scrollY)`, scrollY},
		"one card for the ticket": {`String(document.querySelectorAll("#card-inbox-1").length)`, "1"},
		"the focus":               {`document.activeElement.name || document.activeElement.tagName`, "body"},
	} {
		if got := eval(check[0]); got != check[1] {
			t.Errorf("after the live updates, %s: %q, want %q", what, got, check[1])
		}
	}
	shot("live-board.png")

	// A ticket page: the agent's note appears under a half-typed one, and
	// the Edit panel, open with nothing typed in it, shows the agent's new
	// title and stays open.
	run("open the ticket", 10*time.Second,
		chromedp.Navigate(e.url+"/tickets/inbox-7"),
		chromedp.WaitVisible(css(`#note-form textarea`)),
		chromedp.Click(css(`#edit-ticket summary`)),
		chromedp.SendKeys(css(`#note-form textarea`), "my own note, not sent yet"),
	)
	tool("add_note", map[string]any{"request_id": "live-4", "id": "inbox-7", "body": "Links **checked**."})
	run("the agent's note appears", 5*time.Second, chromedp.WaitReady(css(`#notes .note strong`)))
	tool("update_ticket", map[string]any{"request_id": "live-5", "id": "inbox-7", "title": "Check links in the docs and the README"})
	run("the open Edit panel shows the new title", 5*time.Second,
		chromedp.Poll[chromedp.Void](`document.querySelector('#edit-ticket input[name="title"]').value === "Check links in the docs and the README"`,
			chromedp.WithPollingInterval(50*time.Millisecond)))
	if got := eval(`document.getElementById("edit-ticket").open ? "open" : "closed"`); got != "open" {
		t.Errorf("the Edit panel after the live update: %s, want open", got)
	}
	if got := eval(`document.querySelector("#note-form textarea").value`); got != "my own note, not sent yet" {
		t.Errorf("the half-typed note after the live update: %q", got)
	}
	if got := eval(`String(document.activeElement === document.querySelector("#note-form textarea"))`); got != "true" {
		t.Errorf("the focus after the live update is not in the half-typed note")
	}
	shot("live-ticket.png")

	// The Activity page: the agent's next change appears at the top of the
	// list, and each time shows as a relative time on the new part too.
	run("open the Activity page", 10*time.Second,
		chromedp.Navigate(e.url+"/w/inbox/activity"),
		chromedp.WaitVisible(css(`#activity-list li`)),
	)
	eval(`document.body.dataset.probe = "activity page"; ""`)
	tool("move_ticket", map[string]any{"request_id": "live-6", "id": "inbox-7", "status": "done", "reason": "all links work"})
	run("the agent's move appears first", 5*time.Second,
		chromedp.Poll[chromedp.Void](`document.querySelector("#activity-list li").textContent.includes("all links work")`,
			chromedp.WithPollingInterval(50*time.Millisecond)))
	if got := eval(`document.body.dataset.probe || ""`); got != "activity page" {
		t.Errorf("the Activity page was navigated or reloaded: %q", got)
	}
	if got := eval(`document.querySelector("#activity-list li time").textContent`); strings.Contains(got, "UTC") {
		t.Errorf("the new part's time reads %q, want a relative time (time.js on live parts)", got)
	}
	shot("live-activity.png")
}

// TestLiveBoardBacksOffAndRestsWhenHidden: while the marker fails, the
// page waits longer after each failure (2.5 s, then 5, then 10); a hidden
// tab sends no poll at all, and asks at once when shown again. The store
// plays no part in this, so SQLite only.
func TestLiveBoardBacksOffAndRestsWhenHidden(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a real browser; skipped with -short")
	}
	exe := browserPath(t)
	e := newEnv(t, testbackends.SQLite, auth.ModeLoopback)
	agent := mcpClient(t, e.url)
	target, _ := url.Parse(e.url)
	forward := httputil.NewSingleHostReverseProxy(target)
	var (
		mu      sync.Mutex
		polls   []time.Time
		failing atomic.Bool
	)
	pollsSince := func(from time.Time) []time.Time {
		mu.Lock()
		defer mu.Unlock()
		var out []time.Time
		for _, at := range polls {
			if !at.Before(from) {
				out = append(out, at)
			}
		}
		return out
	}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/changes") {
			// Each poll asks the board's marker and the header's unread
			// count at once: the board's stands for the poll.
			if r.URL.Path == "/w/inbox/changes" {
				mu.Lock()
				polls = append(polls, time.Now())
				mu.Unlock()
			}
			if failing.Load() {
				http.Error(w, "unavailable", http.StatusServiceUnavailable)
				return
			}
		}
		forward.ServeHTTP(w, r)
	}))
	defer front.Close()

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox)...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil { // start the browser on a context without a deadline
		t.Fatal(err)
	}
	do := func(what string, within time.Duration, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, within)
		defer cancel()
		if err := chromedp.Do(sctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	// waitPolls waits (a deadline, not a guess) for n polls since from.
	waitPolls := func(what string, from time.Time, n int, within time.Duration) []time.Time {
		t.Helper()
		deadline := time.Now().Add(within)
		for {
			if got := pollsSince(from); len(got) >= n {
				return got
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d polls within %v, want %d", what, len(pollsSince(from)), within, n)
			}
			time.Sleep(50 * time.Millisecond) // the interval of this deadline loop
		}
	}
	do("open the board", 10*time.Second, chromedp.Navigate(front.URL+"/w/inbox"), chromedp.WaitVisible(chromedp.CSS(`#board`)))

	failing.Store(true)
	failed := waitPolls("failing polls", time.Now(), 3, 30*time.Second)
	first, second := failed[1].Sub(failed[0]), failed[2].Sub(failed[1])
	t.Logf("waits after the first and second failure: %v, %v", first.Round(time.Millisecond), second.Round(time.Millisecond))
	if first < 4*time.Second || second < first*3/2 {
		t.Errorf("waits after failures %v then %v: want about 5 s, then about twice that", first, second)
	}
	failing.Store(false)

	// Hidden: no poll while the agent writes; shown: a poll at once, and the
	// ticket on the page.
	do("hide the tab", 5*time.Second, chromedp.Evaluate[chromedp.Void](`
		Object.defineProperty(document, "hidden", {configurable: true, get: function () { return window.hiddenForTest === true; }});
		window.hiddenForTest = true;
		document.dispatchEvent(new Event("visibilitychange"));`))
	hidden := time.Now()
	res, err := agent.CallTool(ctx, &mcp.CallToolParams{Name: "create_ticket", Arguments: map[string]any{
		"request_id": "hidden-1", "workspace": "inbox", "title": "Written while nobody looked"}})
	if err != nil || res.IsError {
		t.Fatalf("create_ticket over MCP: %v %+v", err, res)
	}
	// An absence has no event to wait for: three poll intervals must pass.
	time.Sleep(3 * 2500 * time.Millisecond)
	if n := len(pollsSince(hidden)); n != 0 {
		t.Errorf("a hidden tab polled %d times in 7.5 s, want none", n)
	}
	shown := time.Now()
	do("show the tab", 5*time.Second, chromedp.Evaluate[chromedp.Void](`
		window.hiddenForTest = false;
		document.dispatchEvent(new Event("visibilitychange"));`))
	waitPolls("the poll when shown", shown, 1, time.Second)
	do("the ticket written meanwhile", 2*time.Second, chromedp.WaitReady(chromedp.CSS(`#card-inbox-1`)))
}
