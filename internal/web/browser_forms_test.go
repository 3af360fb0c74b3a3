package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// TestBrowserForms drives the forms that keep input and the people on the
// board in a real browser: a refused form keeps the title and body typed,
// marks and focuses the bad field, and reloads without a 404; the owner is
// picked from a list; Assign to me; Waiting for you on the Inbox; relative
// times. Every wait polls the page with a deadline.
func TestBrowserForms(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a real browser; skipped with -short")
	}
	exe := browserPath(t)
	eachStore(t, func(t *testing.T, backend string) {
		if backend == "moto" {
			t.Skip("the browser scenarios run on SQLite and minidyn; moto adds nothing a browser can see")
		}
		runBrowserForms(t, exe, backend)
	})
}

func runBrowserForms(t *testing.T, exe, backend string) {
	e := newEnv(t, backend, auth.ModeRequired)
	e.addPerson("alice", board.RoleAdmin)
	e.addPerson("bob", board.RoleMember)
	agent := board.WithPrincipal(context.Background(), board.Principal{Author: "ai:agent", Source: board.SourceMCP})
	res, err := e.svc.CreateTicket(agent, board.CreateTicketInput{RequestID: "a1", Workspace: "inbox", NewTicket: board.NewTicket{Title: "Which colour for the button?"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.MoveTicket(agent, board.MoveTicketInput{RequestID: "a2", ID: res.Ticket.ID, Status: board.StatusWaitingHuman}); err != nil {
		t.Fatal(err)
	}
	ctx := openBrowser(t, exe, 1280, 900)
	run := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, steps...); err != nil {
			dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			html, _ := chromedp.Run(dctx, chromedp.OuterHTML(chromedp.CSS("main")))
			where, _ := chromedp.Run(dctx, chromedp.Location())
			t.Fatalf("%s: %v\nat %s:\n%s", what, err, where, html)
		}
	}
	get := func(what string, a chromedp.Action[string]) string {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		v, err := chromedp.Run(sctx, a)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
	// until polls a condition in the page, up to 10 s.
	until := func(js string) chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(10*time.Second))
	}
	shot := func(name string) {
		t.Helper()
		screenshot(t, ctx, backend, name)
	}
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }

	run("sign in",
		chromedp.Navigate(e.url+"/w/inbox"),
		chromedp.WaitVisible(css(`input[name="handle"]`)),
		chromedp.SendKeys(css(`input[name="handle"]`), "alice"),
		chromedp.SendKeys(css(`input[name="password"]`), testPassword),
		chromedp.Submit(css(`input[name="password"]`)),
		chromedp.WaitVisible(css(`#board`)),
	)

	// Typing a new ticket's title shows the open tickets like it, before
	// anything is created; a title like no other shows none.
	run("similar tickets as the title is typed",
		chromedp.Click(css(`#new-ticket summary`)),
		chromedp.SendKeys(css(`#new-ticket input[name="title"]`), "colour of the button"),
		until(`document.querySelector('#similar-tickets a[href="/tickets/inbox-1"]') !== null`),
	)
	shot("similar.png")
	run("no similar tickets for another title",
		chromedp.SendKeys(css(`#new-ticket input[name="title"]`), " quarterly report planning budget"), // now 2 of 6 words shared
		until(`document.querySelector('#similar-tickets').textContent.trim() === ""`),
		chromedp.Navigate(e.url+"/w/inbox"),
		chromedp.WaitVisible(css(`#board`)),
	)

	// A refused form: the title and body stay, the bad field is marked,
	// described and focused, and the address is the board's.
	const title, body = "Publish the release notes", "Cover the **new forms**.\nAnd the picker."
	run("a tag that cannot be one",
		chromedp.Click(css(`#new-ticket summary`)),
		chromedp.SendKeys(css(`#new-ticket input[name="title"]`), title),
		chromedp.SendKeys(css(`#new-ticket textarea[name="body"]`), body),
		chromedp.SendKeys(css(`#new-ticket input[name="tags"]`), "Docs, c++"),
		chromedp.Click(css(`#create-ticket`)),
		chromedp.WaitVisible(css(`#new-tags-error`)),
	)
	gotTitle := get("title", chromedp.Value(css(`#new-ticket input[name="title"]`)))
	gotBody := get("body", chromedp.Value(css(`#new-ticket textarea[name="body"]`)))
	focused := get("focus", chromedp.Evaluate[string](`document.activeElement.name + " " + document.activeElement.getAttribute("aria-describedby")`))
	loc := get("location", chromedp.Location())
	if gotTitle != title || gotBody != body || focused != "tags new-tags-error" || !strings.HasSuffix(loc, "/w/inbox") {
		t.Fatalf("after a refused create: title %q, body %q, focus %q, at %s", gotTitle, gotBody, focused, loc)
	}
	shot("form-refused.png")
	run("reload", chromedp.Reload(), chromedp.WaitVisible(css(`#board`)))
	if text := get("page", chromedp.Text(css(`body`))); strings.Contains(text, "404") {
		t.Fatalf("a reload after the refused form: %q", text)
	}

	// The owner picker: people and the agent seen here; bob is picked.
	options := get("owners", chromedp.Evaluate[string](`[...document.querySelectorAll('#new-ticket select[name="owner"] option')].map(o => o.value).join(" ")`))
	if options != " human human:alice human:bob ai:agent" {
		t.Fatalf("the owner picker offers %q", options)
	}
	run("create with an owner picked",
		chromedp.Click(css(`#new-ticket summary`)),
		chromedp.SendKeys(css(`#new-ticket input[name="title"]`), title),
		chromedp.SetValue(css(`#new-ticket select[name="owner"]`), "human:bob"),
		chromedp.Click(css(`#create-ticket`)),
		chromedp.WaitVisible(css(`#notes-h`)),
		until(`document.querySelector('.fields').textContent.includes('human:bob')`),
	)
	shot("owner-picked.png")

	// Assign to me, from the ticket page.
	run("assign to me",
		chromedp.Click(css(`#assign-to-me`)),
		until(`document.querySelector('.fields').textContent.includes('human:alice') && !document.querySelector('#assign-to-me')`),
	)
	if n := assignEvents(t, e, "inbox-2"); n != 1 {
		t.Fatalf("Assign to me recorded %d owner changes, want 1", n)
	}

	// Waiting for you, on the Inbox from the navigation: the agent's
	// question, unowned.
	run("waiting for you",
		chromedp.Click(css(`nav a[href="/inbox"]`)),
		chromedp.WaitVisible(css(`#waiting-inbox-1`)),
		// time.js has shown the time relative, the exact one on hover.
		until(`(() => { const t = document.querySelector('#waiting-inbox-1 time'); return /^(just now|\d+ min ago)$/.test(t.textContent) && t.title !== "" && t.title !== t.textContent; })()`),
	)
	text := get("waiting", chromedp.Text(css(`#waiting-inbox-1`)))
	if !strings.Contains(text, "Which colour for the button?") || !strings.Contains(text, "nobody") {
		t.Fatalf("Waiting for you: %q", text)
	}
	shot("waiting.png")

	// Without JavaScript (a tab with script execution off): the browser
	// posts the form itself and shows the refused form at the URL it
	// posted to; going to that address again is a GET that leads back to
	// the board, not a 404.
	nojs, cancelNoJS := chromedp.NewContext(ctx)
	defer cancelNoJS()
	if err := chromedp.Do(nojs); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(nojs, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	ctx = nojs // run and get act on this tab from here on
	run("refused without JavaScript",
		chromedp.Navigate(e.url+"/w/inbox"),
		chromedp.WaitVisible(css(`#board`)),
		chromedp.Click(css(`#new-ticket summary`)),
		chromedp.SendKeys(css(`#new-ticket input[name="title"]`), title),
		chromedp.SendKeys(css(`#new-ticket textarea[name="body"]`), body),
		chromedp.SendKeys(css(`#new-ticket input[name="tags"]`), "c++"),
		chromedp.Click(css(`#create-ticket`)),
		chromedp.WaitVisible(css(`#new-tags-error`)),
	)
	gotTitle = get("title", chromedp.Value(css(`#new-ticket input[name="title"]`)))
	gotBody = get("body", chromedp.Value(css(`#new-ticket textarea[name="body"]`)))
	loc = get("location", chromedp.Location())
	if gotTitle != title || gotBody != body || !strings.HasSuffix(loc, "/w/inbox/tickets") {
		t.Fatalf("refused without JavaScript: title %q, body %q, at %s", gotTitle, gotBody, loc)
	}
	run("the address again", chromedp.Navigate(loc), chromedp.WaitVisible(css(`#board`)))
	if text := get("page", chromedp.Text(css(`body`))); strings.Contains(text, "404") {
		t.Fatalf("the refused form's address, opened again: %q", text)
	}
	shot("form-refused-nojs.png")
}

// assignEvents counts the owner changes of a ticket's history.
func assignEvents(t *testing.T, e *env, id string) int {
	t.Helper()
	d, err := e.svc.GetTicket(context.Background(), board.TicketIDInput{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ev := range d.History {
		if ev.Type == board.EventTicketUpdated && strings.Join(ev.Fields, ",") == "owner" {
			n++
		}
	}
	return n
}
