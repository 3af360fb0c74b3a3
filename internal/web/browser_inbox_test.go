package web_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// TestBrowserInbox follows the Inbox in a real browser: with a board open,
// an agent's note over MCP that mentions the person raises the header's
// unread count without a reload; on the Inbox, the agent's next mention
// appears in the list (and the ticket it moved in Waiting for you) live;
// Mark all read clears the count and the marks, through one POST. axe-core
// checks the page in light and dark mode. SQLite and minidyn.
func TestBrowserInbox(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a real browser; skipped with -short")
	}
	exe := browserPath(t)
	axe := axeSource(t)
	eachStore(t, func(t *testing.T, backend string) {
		if backend == "moto" {
			t.Skip("the browser scenarios run on SQLite and minidyn; moto adds nothing a browser can see")
		}
		runBrowserInbox(t, exe, axe, backend)
	})
}

func runBrowserInbox(t *testing.T, exe, axe, backend string) {
	e := newEnv(t, backend, auth.ModeRequired)
	e.addPerson("alice", board.RoleMember)
	agent := mcpClient(t, e.serveMode(e.store, auth.ModeLoopback)) // MCP as ai:agent, same store
	tool := func(name string, args map[string]any) {
		t.Helper()
		res, err := agent.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s over MCP: %v", name, err)
		}
		if res.IsError {
			b, _ := json.Marshal(res.Content)
			t.Fatalf("%s over MCP: %s", name, b)
		}
	}
	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
	until := func(js string) chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(10*time.Second))
	}
	const count = `(document.getElementById("unread-count") || {textContent: ""}).textContent.replace(/\D/g, "")`

	tool("create_ticket", map[string]any{"request_id": "seed-1", "workspace": "inbox", "title": "Renew the certificate"})
	tool("create_ticket", map[string]any{"request_id": "seed-2", "workspace": "inbox", "title": "Plan the offsite"})
	s := startSession(t, exe, e, backend)
	s.signIn("alice")
	s.run("open the board", chromedp.Navigate(e.url+"/w/inbox"), chromedp.WaitVisible(css(`#card-inbox-2`)))
	if got := eval[string](s, "the count before", count); got != "" {
		t.Fatalf("the header counts %q unread before anything happened", got)
	}
	// A mark only this page's document carries: a reload or a swapped
	// body (htmx navigation) would lose it.
	eval[string](s, "mark the page", `document.body.dataset.probe = "board"; ""`)
	tool("add_note", map[string]any{"request_id": "ask-1", "id": "inbox-1", "body": "@alice which CA should we use?"})
	s.run("the header's count goes up live", until(count+` === "1"`))
	if got := eval[string](s, "the probe", `document.body.dataset.probe || ""`); got != "board" {
		t.Fatalf("the board was reloaded or navigated (%q) to show the count", got)
	}

	s.run("open the Inbox from the header", chromedp.Click(css(`#nav-inbox`)), chromedp.WaitVisible(css(`#inbox-list li.unread`)))
	first := eval[string](s, "the item", `document.querySelector("#inbox-list li.unread").textContent.replace(/\s+/g, " ")`)
	for _, want := range []string{"Unread", "Mention", "ai:agent mentioned you in a note", "inbox-1 Renew the certificate"} {
		if !strings.Contains(first, want) {
			t.Errorf("the item reads %q, without %q", first, want)
		}
	}
	eval[string](s, "mark the page", `document.body.dataset.probe = "inbox"; ""`)
	tool("move_ticket", map[string]any{"request_id": "ask-2", "id": "inbox-2", "status": "waiting_human", "reason": "@alice is the budget approved?"})
	s.run("the new item and the waiting ticket appear live",
		until(`document.querySelectorAll("#inbox-list li.unread").length === 2 && `+count+` === "2" && !!document.getElementById("waiting-inbox-2")`))
	if got := eval[string](s, "the probe", `document.body.dataset.probe || ""`); got != "inbox" {
		t.Fatalf("the Inbox was reloaded or navigated (%q) to show the item", got)
	}
	newest := eval[string](s, "the newest item", `document.querySelector("#inbox-list li").textContent.replace(/\s+/g, " ")`)
	if !strings.Contains(newest, "mentioned you in a move's reason") || !strings.Contains(newest, "Plan the offsite") {
		t.Errorf("the newest item reads %q", newest)
	}
	for _, scheme := range []string{"dark", "light"} {
		s.colorScheme(scheme)
		axeAudit(t, s, axe, scheme, "inbox", "/inbox")
	}
	s.shot("inbox.png")

	sent, done := s.postsSent.Load(), e.postsDone.Load()
	s.run("mark all read",
		chromedp.Click(css(`#mark-all-read`)),
		until(count+` === "" && document.querySelectorAll("#inbox-list li.unread").length === 0 && document.querySelectorAll("#inbox-list li").length === 2`))
	if n := s.settle("mark all read", sent, done); n != 1 {
		t.Errorf("Mark all read sent %d POSTs, want 1", n)
	}
	if msg := eval[string](s, "the notice", `(document.querySelector(".notice") || {textContent: ""}).textContent`); !strings.Contains(msg, "marked read") {
		t.Errorf("after Mark all read the page says %q", msg)
	}
	list, err := e.svc.ListInbox(board.WithPrincipal(context.Background(), board.Principal{Author: "human:alice", Source: board.SourceWeb}), board.ListInboxInput{})
	if err != nil {
		t.Fatal(err)
	}
	if list.Unread != 0 || len(list.Items) != 2 {
		t.Fatalf("after Mark all read the store has %d unread of %d", list.Unread, len(list.Items))
	}
	s.shot("inbox-read.png")
	// On a phone the lines wrap, the count stays in the header.
	tool("add_note", map[string]any{"request_id": "ask-3", "id": "inbox-1", "body": "@alice and a long question that wraps on a phone: the intermediate or the root?"})
	s.run("the Inbox on a phone", chromedp.EmulateViewport(390, 844), chromedp.Navigate(e.url+"/inbox"), chromedp.WaitVisible(css(`#inbox-list`)))
	s.shot("inbox-phone.png")
}
