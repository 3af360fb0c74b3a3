package web_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// TestBrowserRelations drives links between tickets in a real browser:
// the blocked ticket's card says "blocked by 1"; its page lists the blocker
// and the parent, the parent's lists its sub-tickets with "1 of 2 done";
// a person adds a link with the picker and removes it with Remove, and
// the page follows each; an agent's link shows on the open board without
// a reload. The board and the ticket page pass axe with
// nothing serious, in light and dark mode.
func TestBrowserRelations(t *testing.T) {
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
		ctx := board.WithPrincipal(context.Background(), board.Principal{Author: "human:alice", Source: board.SourceWeb})
		for i, title := range []string{"Design the form", "Build the form", "Launch plan", "Write the docs"} {
			if _, err := e.svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: fmt.Sprint("c", i), Workspace: "inbox", NewTicket: board.NewTicket{Title: title}}); err != nil {
				t.Fatal(err)
			}
		}
		for i, rel := range []board.RelateInput{
			{ID: "inbox-1", Kind: board.RelationBlocks, Other: "inbox-2"},
			{ID: "inbox-3", Kind: board.RelationParent, Other: "inbox-2"},
			{ID: "inbox-3", Kind: board.RelationParent, Other: "inbox-4"},
		} {
			rel.RequestID = fmt.Sprint("r", i)
			if _, err := e.svc.RelateTickets(ctx, rel); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.svc.MoveTicket(ctx, board.MoveTicketInput{RequestID: "m4", ID: "inbox-4", Status: board.StatusDone}); err != nil {
			t.Fatal(err)
		}
		css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
		s := startSession(t, exe, e, backend)
		s.signIn("alice")

		s.run("open the board", chromedp.Navigate(e.url+"/w/inbox"), chromedp.WaitVisible(css(`#card-inbox-2`)))
		if got := eval[string](s, "the blocked card", `document.querySelector("#card-inbox-2 .blocked")?.textContent ?? ""`); got != "blocked by 1" {
			t.Errorf("the blocked card reads %q, want \"blocked by 1\"", got)
		}
		if n := eval[int](s, "counts shown", `document.querySelectorAll(".card .blocked").length`); n != 1 {
			t.Errorf("%d cards show a blocked count, want 1", n)
		}
		for _, scheme := range []string{"light", "dark"} {
			s.colorScheme(scheme)
			axeAudit(t, s, axe, scheme, "board with a blocked card", "/w/inbox")
		}
		s.colorScheme("light")
		s.shot("relations-board.png")

		// Live: a link an agent adds shows on the open board without a reload.
		agent := board.WithPrincipal(context.Background(), board.Principal{Author: "ai:helper", Source: board.SourceMCP})
		if _, err := e.svc.RelateTickets(agent, board.RelateInput{RequestID: "live", ID: "inbox-3", Kind: board.RelationBlocks, Other: "inbox-1"}); err != nil {
			t.Fatal(err)
		}
		if got := pollText(s, `document.querySelector("#card-inbox-1 .blocked")?.textContent`); got != "blocked by 1" {
			t.Errorf("after an agent's link the open board's card reads %q", got)
		}

		s.run("open the parent", chromedp.Navigate(e.url+"/tickets/inbox-3"), chromedp.WaitVisible(css(`#rel-children`)))
		if got := eval[string](s, "progress", `document.querySelector("#rel-children .progress").textContent`); got != "1 of 2 done" {
			t.Errorf("the parent's progress reads %q", got)
		}
		if n := eval[int](s, "sub-ticket links", `document.querySelectorAll('#rel-children a[href="/tickets/inbox-2"], #rel-children a[href="/tickets/inbox-4"]').length`); n != 2 {
			t.Errorf("%d sub-tickets link to their tickets, want 2", n)
		}

		s.run("open the blocked ticket", chromedp.Navigate(e.url+"/tickets/inbox-2"), chromedp.WaitVisible(css(`#relate-form`)))
		if n := eval[int](s, "blocker and parent links", `document.querySelectorAll('#rel-blocked-by a[href="/tickets/inbox-1"], #rel-parent a[href="/tickets/inbox-3"]').length`); n != 2 {
			t.Errorf("the blocked ticket's page links %d of its blocker and parent, want 2", n)
		}
		for _, scheme := range []string{"light", "dark"} {
			s.colorScheme(scheme)
			axeAudit(t, s, axe, scheme, "ticket with links", "/tickets/inbox-2")
		}
		s.colorScheme("light")

		// Add: inbox-2 blocks inbox-4, picked by typing its number.
		s.run("add a link", chromedp.SetValue(css(`#relate-form select[name=kind]`), "blocks"),
			chromedp.SendKeys(css(`#relate-form input[name=other]`), "inbox-4"),
			chromedp.Click(css(`#relate-form button[type=submit]`)))
		pollText(s, `document.querySelector('#rel-blocks a[href="/tickets/inbox-4"]') && /Link added/.test(document.body.textContent) && "added"`)
		if d, err := e.svc.GetTicket(ctx, board.TicketIDInput{ID: "inbox-4"}); err != nil || len(d.BlockedBy) != 1 || d.BlockedBy[0].ID != "inbox-2" {
			t.Fatalf("after the add: %v, %v; want inbox-4 blocked by inbox-2", d.BlockedBy, err)
		}
		s.shot("relations-ticket.png")

		// Remove the blocker.
		s.run("remove the blocker", chromedp.Click(css(`#rel-blocked-by button[type=submit]`)))
		pollText(s, `!document.querySelector('#rel-blocked-by a[href="/tickets/inbox-1"]') && /Link removed/.test(document.body.textContent) && "removed"`)
		if d, err := e.svc.GetTicket(ctx, board.TicketIDInput{ID: "inbox-2"}); err != nil || len(d.BlockedBy) != 0 || !d.Ready {
			t.Fatalf("after the removal: blocked by %v, ready %v, %v", d.BlockedBy, d.Ready, err)
		}
		s.shot("relations-removed.png")
	})
}
