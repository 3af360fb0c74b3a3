package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// cardOf is the board card of ticket id as the page shows it, "" when the
// board does not show it.
func cardOf(page, id string) string {
	i := strings.Index(page, `id="card-`+id+`"`)
	if i < 0 {
		return ""
	}
	rest := page[i:]
	if j := strings.Index(rest, "</li>\n"); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// sectionOf is the ticket page's element with this id up to its end tag.
func sectionOf(page, id string) string {
	i := strings.Index(page, `id="`+id+`"`)
	if i < 0 {
		return ""
	}
	rest := page[i:]
	if j := strings.Index(rest, "</section>"); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// TestRelationForms: the ticket page adds a link (a replayed form writes
// it once), lists it from both ends with links to the tickets, the board's
// card says "blocked by 1" and the Ready filter leaves the blocked ticket
// out; sub-tickets show their progress; refusals come back on the page
// (a bad pick beside the picker, a cycle as the page's message); Remove
// takes the link away and the card's count with it.
func TestRelationForms(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("alice", board.RoleMember)
		ctx := board.WithPrincipal(context.Background(), board.Principal{Author: "human:alice", Source: board.SourceWeb})
		for i, title := range []string{"Design the form", "Build the form", "Launch plan", "Write the docs"} {
			if _, err := e.svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: fmt.Sprint("c", i), Workspace: "inbox", NewTicket: board.NewTicket{Title: title}}); err != nil {
				t.Fatal(err)
			}
		}
		b := e.browser()
		b.signIn("alice", testPassword)

		tp := b.get("/tickets/inbox-2")
		if !strings.Contains(tp.body, `<datalist id="ticket-choices">`) || !strings.Contains(tp.body, `<option value="inbox-1"`) || strings.Contains(tp.body, `<option value="inbox-2"`) {
			t.Fatal("the picker should offer the workspace's other tickets, not the ticket itself")
		}
		relate := url.Values{"request_id": {formRequestID(t, tp.body, "/tickets/inbox-2/relations")}, "kind": {"blocked_by"}, "other": {"1"}}
		for range 2 {
			if r := b.post("/tickets/inbox-2/relations", relate); r.status != http.StatusSeeOther || r.header.Get("Location") != "/tickets/inbox-2?done=related#relations" {
				t.Fatalf("add a link: %d %v", r.status, r.header.Get("Location"))
			}
		}
		d, err := e.svc.GetTicket(ctx, board.TicketIDInput{ID: "inbox-2"})
		if err != nil {
			t.Fatal(err)
		}
		related := 0
		for _, ev := range d.History {
			if ev.Type == board.EventTicketRelated {
				related++
			}
		}
		if len(d.BlockedBy) != 1 || d.BlockedBy[0].ID != "inbox-1" || related != 1 || d.Ready {
			t.Fatalf("after the form sent twice: blocked_by %v, %d related events, ready %v", d.BlockedBy, related, d.Ready)
		}

		tp = b.get("/tickets/inbox-2?done=related")
		if !strings.Contains(tp.body, "Link added.") {
			t.Fatal("the ticket page does not say the link was added")
		}
		if s := sectionOf(tp.body, "rel-blocked-by"); !strings.Contains(s, `href="/tickets/inbox-1"`) || !strings.Contains(s, "Design the form") || !strings.Contains(s, "Remove") {
			t.Fatalf("Blocked by should list inbox-1 with a link and Remove: %q", s)
		}
		if !strings.Contains(tp.body, "Not ready: waits for the tickets that block it.") {
			t.Fatal("the page should say the ticket is not ready")
		}
		if s := sectionOf(b.get("/tickets/inbox-1").body, "rel-blocks"); !strings.Contains(s, `href="/tickets/inbox-2"`) {
			t.Fatalf("the blocker's page should list what it blocks: %q", s)
		}

		bp := b.get("/w/inbox")
		if c := cardOf(bp.body, "inbox-2"); !strings.Contains(c, "blocked by 1") {
			t.Fatalf("the blocked card should say blocked by 1: %q", c)
		}
		if c := cardOf(bp.body, "inbox-1"); c == "" || strings.Contains(c, "blocked by") {
			t.Fatalf("the blocker's card should show no count: %q", c)
		}
		ready := b.get("/w/inbox?ready=1")
		if cardOf(ready.body, "inbox-2") != "" || cardOf(ready.body, "inbox-1") == "" || !strings.Contains(ready.body, `name="ready" value="1" checked`) {
			t.Fatal("the Ready filter should keep inbox-1, leave out the blocked inbox-2, and stay checked")
		}

		// Sub-tickets and their progress.
		tp = b.get("/tickets/inbox-3")
		for _, other := range []string{"inbox-2", "inbox-4"} {
			add := url.Values{"request_id": {"child-" + other}, "kind": {"child"}, "other": {other}}
			if r := b.post("/tickets/inbox-3/relations", add); r.status != http.StatusSeeOther {
				t.Fatalf("add sub-ticket %s: %d %s", other, r.status, r.body)
			}
		}
		if _, err := e.svc.MoveTicket(ctx, board.MoveTicketInput{RequestID: "m4", ID: "inbox-4", Status: board.StatusDone}); err != nil {
			t.Fatal(err)
		}
		tp = b.get("/tickets/inbox-3")
		if s := sectionOf(tp.body, "rel-children"); !strings.Contains(s, "1 of 2 done") || !strings.Contains(s, `href="/tickets/inbox-4"`) {
			t.Fatalf("Sub-tickets should show 1 of 2 done: %q", s)
		}
		if s := sectionOf(b.get("/tickets/inbox-4").body, "rel-parent"); !strings.Contains(s, `href="/tickets/inbox-3"`) {
			t.Fatalf("a sub-ticket's page should name its parent: %q", s)
		}

		// Refusals: nothing typed, a ticket of another workspace, a kind
		// the form does not offer: beside the field; a cycle: the page's
		// message, what was typed kept.
		for _, bad := range []url.Values{
			{"kind": {"blocks"}, "other": {""}},
			{"kind": {"blocks"}, "other": {"other-1"}},
			{"kind": {"sibling"}, "other": {"inbox-3"}},
		} {
			bad.Set("request_id", "bad-"+bad.Get("kind")+bad.Get("other"))
			r := b.post("/tickets/inbox-1/relations", bad)
			if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, `aria-invalid="true"`) || !strings.Contains(r.body, `class="field-error"`) {
				t.Fatalf("refused %v: %d, want 422 with the field marked", bad, r.status)
			}
		}
		cycle := url.Values{"request_id": {"cycle"}, "kind": {"blocked_by"}, "other": {"inbox-2"}}
		r := b.post("/tickets/inbox-1/relations", cycle)
		if r.status < 400 || !strings.Contains(r.body, "cycle") || !strings.Contains(r.body, `value="inbox-2"`) || r.header.Get("HX-Replace-Url") != "/tickets/inbox-1" {
			t.Fatalf("a cycle: %d, want it refused on the page with what was typed", r.status)
		}
		if d, _ := e.svc.GetTicket(ctx, board.TicketIDInput{ID: "inbox-1"}); len(d.BlockedBy) != 0 {
			t.Fatal("a refused cycle wrote a relation")
		}

		// Remove.
		tp = b.get("/tickets/inbox-2")
		remove := url.Values{"request_id": {formRequestID(t, tp.body, "/tickets/inbox-2/relations/remove")}, "kind": {"blocked_by"}, "other": {"inbox-1"}}
		if r := b.post("/tickets/inbox-2/relations/remove", remove); r.status != http.StatusSeeOther || r.header.Get("Location") != "/tickets/inbox-2?done=unrelated#relations" {
			t.Fatalf("remove: %d %v", r.status, r.header.Get("Location"))
		}
		if c := cardOf(b.get("/w/inbox").body, "inbox-2"); c == "" || strings.Contains(c, "blocked by") {
			t.Fatalf("after the removal the card should show no count: %q", c)
		}
		if r := b.post("/tickets/inbox-2/relations/remove", url.Values{"request_id": {"x"}, "kind": {"nonsense"}, "other": {"inbox-1"}}); r.status != http.StatusUnprocessableEntity {
			t.Fatalf("a Remove naming no relation kind: %d, want 422", r.status)
		}
		if r := b.get("/tickets/inbox-2/relations"); r.status != http.StatusSeeOther || r.header.Get("Location") != "/tickets/inbox-2#relations" {
			t.Fatalf("GET of the form's URL: %d %v", r.status, r.header.Get("Location"))
		}
	})
}
