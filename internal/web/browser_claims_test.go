package web_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// TestBrowserClaims drives a claimed ticket in a real browser: its card
// says who holds it and how long is left ("claimed by helper · 15 min
// left"), as does its page; a person breaks the claim there after
// confirming, and the page then shows it free and the break in the
// history. The board, the ticket page and the confirmation pass axe with
// nothing serious, in light and dark mode.
func TestBrowserClaims(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a real browser; skipped with -short")
	}
	exe := browserPath(t)
	axe := axeSource(t)
	eachStore(t, func(t *testing.T, backend string) {
		if backend == "moto" {
			t.Skip("the browser scenarios run on SQLite and minidyn; moto adds nothing a browser can see")
		}
		e := newEnvWithAgents(t, backend)
		e.addPerson("alice", board.RoleMember)
		agent := board.WithPrincipal(context.Background(), board.Principal{Author: "ai:helper", OnBehalfOf: "human:bob", Source: board.SourceMCP})
		for _, title := range []string{"Held by an agent", "Free"} {
			if _, err := e.svc.CreateTicket(agent, board.CreateTicketInput{RequestID: "create-" + strings.ReplaceAll(title, " ", "-"), Workspace: "inbox", NewTicket: board.NewTicket{Title: title}}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.svc.ClaimTicket(agent, board.ClaimTicketInput{RequestID: "claim", ID: "inbox-1", LeaseSeconds: 900}); err != nil {
			t.Fatal(err)
		}
		css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
		s := startSession(t, exe, e, backend)
		s.signIn("alice")

		// The lease is 15 minutes; the page may be shown a moment into it.
		minLeft := regexp.MustCompile(`^claimed by helper · 1[45] min left$`)
		s.run("open the board", chromedp.Navigate(e.url+"/w/inbox"), chromedp.WaitVisible(css(`#board .cards[data-dnd]`)))
		card := pollText(s, shownClaim(".claim"))
		if !minLeft.MatchString(card) {
			t.Errorf("the card reads %q, want it to match %s", card, minLeft)
		}
		if n := eval[int](s, "claims shown", `document.querySelectorAll(".claim").length`); n != 1 {
			t.Errorf("%d cards say they are claimed, want 1 (inbox-2 is free)", n)
		}
		for _, scheme := range []string{"light", "dark"} {
			s.colorScheme(scheme)
			axeAudit(t, s, axe, scheme, "board with a claim", "/w/inbox")
		}
		s.colorScheme("light")
		s.shot("claim-card.png")

		s.run("open the claimed ticket", chromedp.Navigate(e.url+"/tickets/inbox-1"), chromedp.WaitVisible(css(`#break-claim`)))
		page := pollText(s, shownClaim("#claim"))
		if !regexp.MustCompile(`^by ai:helper for human:bob, 1[45] min left Break claim$`).MatchString(page) {
			t.Errorf("the ticket page's claim reads %q", page)
		}
		for _, scheme := range []string{"light", "dark"} {
			s.colorScheme(scheme)
			axeAudit(t, s, axe, scheme, "ticket with a claim", "/tickets/inbox-1")
		}
		s.colorScheme("light")
		s.shot("claim-ticket.png")

		s.run("ask to break the claim", chromedp.Click(css(`#break-claim`)), chromedp.WaitVisible(css(`#confirm-action`)))
		question := eval[string](s, "the confirmation", `document.querySelector(".confirm-box").textContent`)
		if !regexp.MustCompile(`Break the claim on inbox-1\?[\s\S]*ai:helper for human:bob is working on this ticket`).MatchString(question) {
			t.Errorf("the confirmation reads %q", question)
		}
		if d, _ := e.svc.GetTicket(agent, board.TicketIDInput{ID: "inbox-1"}); d.Ticket.Claim == nil {
			t.Fatal("the claim ended before it was confirmed")
		}
		for _, scheme := range []string{"light", "dark"} {
			s.colorScheme(scheme)
			axeAudit(t, s, axe, scheme, "break claim confirmation", "/tickets/inbox-1/release")
		}
		s.colorScheme("light")
		s.shot("claim-break-confirm.png")

		s.run("break the claim", chromedp.Click(css(`#confirm-action`)), chromedp.WaitVisible(css(`#history-h`)))
		pollText(s, `!document.getElementById("break-claim") && !document.getElementById("claim") && /broke the claim of ai:helper for human:bob/.test(document.body.textContent) && "freed"`)
		if d, err := e.svc.GetTicket(agent, board.TicketIDInput{ID: "inbox-1"}); err != nil || d.Ticket.Claim != nil {
			t.Fatalf("after the break: %+v, %v; want no claim", d.Ticket.Claim, err)
		}
		s.shot("claim-broken.png")
	})
}

// shownClaim is a script answering the text of the element sel, spaces
// folded, once time.js has replaced the lease's end ("until …") by what
// is left; "" before.
func shownClaim(sel string) string {
	return `(() => { const c = document.querySelector("` + sel + `"); return c && !/until/.test(c.textContent) ? c.textContent.replace(/\s+/g, " ").trim() : "" })()`
}
