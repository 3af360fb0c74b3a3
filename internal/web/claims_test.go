package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A claimed ticket says who holds it on its card and its page, and a
// person breaks the claim there after confirming; the break is recorded
// once however often the confirmed form is sent.
func TestBreakClaim(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("alice", board.RoleMember)
		b := e.browser()
		b.signIn("alice", testPassword)
		agent := board.WithPrincipal(context.Background(), board.Principal{Author: "ai:helper", OnBehalfOf: "human:bob", Source: board.SourceMCP})
		if _, err := e.svc.CreateTicket(agent, board.CreateTicketInput{RequestID: "a", Workspace: "inbox", NewTicket: board.NewTicket{Title: "held"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.ClaimTicket(agent, board.ClaimTicketInput{RequestID: "c", ID: "inbox-1"}); err != nil {
			t.Fatal(err)
		}
		if card := b.get("/w/inbox").body; !strings.Contains(card, `claimed by helper · <time class="left"`) {
			t.Fatalf("the card does not show the claim:\n%s", card)
		}
		tp := b.get("/tickets/inbox-1")
		if !strings.Contains(tp.body, `by ai:helper for human:bob, <time class="left"`) {
			t.Fatalf("the ticket page does not show the claim:\n%s", tp.body)
		}
		rid := formRequestID(t, tp.body, "/tickets/inbox-1/release")
		ask := b.post("/tickets/inbox-1/release", url.Values{"request_id": {rid}})
		if ask.status != http.StatusOK || !strings.Contains(ask.body, "Break the claim on inbox-1?") || !strings.Contains(ask.body, "ai:helper for human:bob is working on this ticket") {
			t.Fatalf("the confirmation: %d\n%s", ask.status, ask.body)
		}
		if d, _ := e.svc.GetTicket(agent, board.TicketIDInput{ID: "inbox-1"}); d.Ticket.Claim == nil {
			t.Fatal("the claim ended before it was confirmed")
		}
		action := "/tickets/inbox-1/release?request_id=" + url.QueryEscape(rid)
		if !strings.Contains(ask.body, `action="`+strings.ReplaceAll(action, "&", "&amp;")+`"`) {
			t.Fatalf("the confirmation does not post to %s:\n%s", action, ask.body)
		}
		for range 2 { // a double click
			if r := b.post(action, url.Values{"confirm": {"yes"}}); r.status != http.StatusSeeOther || r.header.Get("Location") != "/tickets/inbox-1" {
				t.Fatalf("break: %d %v %s", r.status, r.header, r.body)
			}
		}
		d, err := e.svc.GetTicket(agent, board.TicketIDInput{ID: "inbox-1"})
		if err != nil {
			t.Fatal(err)
		}
		broken := 0
		for _, ev := range d.History {
			if ev.Type == board.EventTicketClaimBroken {
				broken++
				if ev.Author != "human:alice" || ev.Holder != "ai:helper for human:bob" {
					t.Errorf("break event = %+v", ev)
				}
			}
		}
		if d.Ticket.Claim != nil || broken != 1 {
			t.Fatalf("after the break sent twice: claim %+v, %d break events; want none, 1", d.Ticket.Claim, broken)
		}
		if page := b.get("/tickets/inbox-1").body; strings.Contains(page, `id="break-claim"`) || !strings.Contains(page, "broke the claim of ai:helper for human:bob") {
			t.Errorf("the ticket page after the break:\n%s", page)
		}
	})
}
