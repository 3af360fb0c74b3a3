package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// People in the board: the owner is picked from the board's people and the
// agents seen in the workspace; "Assign to me" writes once; "Waiting for
// me" gathers what waits for the person across workspaces.

// ownerOptions are the values the owner select of the form posting to
// action offers, with the selected one.
func ownerOptions(t *testing.T, page, action string) (values []string, selected string) {
	t.Helper()
	i := strings.Index(page, `action="`+action+`"`)
	if i < 0 {
		t.Fatalf("no form posting to %s", action)
	}
	sel := regexp.MustCompile(`(?s)<select name="owner".*?</select>`).FindString(page[i:])
	for _, m := range regexp.MustCompile(`<option value="([^"]*)"( selected)?>`).FindAllStringSubmatch(sel, -1) {
		values = append(values, m[1])
		if m[2] != "" {
			selected = m[1]
		}
	}
	return values, selected
}

func TestOwnerPicker(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("alice", board.RoleMember)
		e.addPerson("bob", board.RoleMember)
		b := e.browser()
		b.signIn("alice", testPassword)
		agent := board.WithPrincipal(context.Background(), board.Principal{Author: "ai:helper", Source: board.SourceMCP})
		if _, err := e.svc.CreateTicket(agent, board.CreateTicketInput{RequestID: "a", Workspace: "inbox", NewTicket: board.NewTicket{Title: "from an agent", Owner: "ai:other"}}); err != nil {
			t.Fatal(err)
		}
		values, selected := ownerOptions(t, b.get("/w/inbox").body, "/w/inbox/tickets")
		if got := strings.Join(values, " "); got != " human human:alice human:bob ai:helper ai:other" || selected != "" {
			t.Fatalf("the new-ticket form offers owners %q (selected %q); want nobody, any person, alice (me first), bob, the agents seen", got, selected)
		}
		if !strings.Contains(b.get("/w/inbox").body, ">human:alice (you)</option>") {
			t.Error("the signed-in person is not marked (you)")
		}
		// The edit form selects the stored owner, and keeps one no choice
		// holds (an agent only the ticket names elsewhere), unchanged.
		values, selected = ownerOptions(t, b.get("/tickets/inbox-1").body, "/tickets/inbox-1/edit")
		if selected != "ai:other" || !strings.Contains(strings.Join(values, " "), "human:bob") {
			t.Fatalf("the edit form offers %v with %q selected, want ai:other selected", values, selected)
		}
		// In reference, where no agent wrote, none is offered.
		values, _ = ownerOptions(t, b.get("/w/reference").body, "/w/reference/tickets")
		if strings.Contains(strings.Join(values, " "), "ai:") {
			t.Fatalf("reference offers agents never seen there: %v", values)
		}
	})
}

func TestAssignToMe(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("alice", board.RoleMember)
		b := e.browser()
		b.signIn("alice", testPassword)
		ctx := board.WithPrincipal(context.Background(), board.Principal{Author: "ai:helper", Source: board.SourceMCP})
		if _, err := e.svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: "a", Workspace: "inbox", NewTicket: board.NewTicket{Title: "nobody's"}}); err != nil {
			t.Fatal(err)
		}
		tp := b.get("/tickets/inbox-1")
		form := url.Values{"request_id": {formRequestID(t, tp.body, "/tickets/inbox-1/assign")}}
		for range 2 { // a double click
			if r := b.post("/tickets/inbox-1/assign", form); r.status != http.StatusSeeOther || r.header.Get("Location") != "/tickets/inbox-1" {
				t.Fatalf("assign: %d %v", r.status, r.header)
			}
		}
		d, err := e.svc.GetTicket(ctx, board.TicketIDInput{ID: "inbox-1"})
		if err != nil {
			t.Fatal(err)
		}
		updates := 0
		for _, ev := range d.History {
			if ev.Type == board.EventTicketUpdated {
				updates++
				if ev.Author != "human:alice" || strings.Join(ev.Fields, ",") != "owner" || ev.RequestID != form.Get("request_id") {
					t.Errorf("assign event = %+v", ev)
				}
			}
		}
		if d.Ticket.Owner == nil || *d.Ticket.Owner != "human:alice" || updates != 1 {
			t.Fatalf("after Assign to me sent twice: owner %v, %d updates; want human:alice, 1", d.Ticket.Owner, updates)
		}
		if strings.Contains(b.get("/tickets/inbox-1").body, `action="/tickets/inbox-1/assign"`) {
			t.Error("Assign to me is offered on a ticket that is mine already")
		}
	})
}

// Times are <time> elements with the exact UTC time as text and title (the
// page without JavaScript), which time.js, a static script, shows relative.
func TestRelativeTimes(t *testing.T) {
	e := newEnv(t, "sqlite", auth.ModeLoopback)
	b := e.browser()
	b.post("/w/inbox/tickets", url.Values{"request_id": {"seed"}, "title": {"x"}})
	p := b.get("/tickets/inbox-1")
	m := regexp.MustCompile(`<time class="ago" datetime="(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)" title="(\d{4}-\d\d-\d\d \d\d:\d\d UTC)">(\d{4}-\d\d-\d\d \d\d:\d\d UTC)</time>`).FindStringSubmatch(p.body)
	if m == nil || m[2] != m[3] || !strings.HasPrefix(strings.ReplaceAll(m[1], "T", " "), m[2][:16]) {
		t.Fatalf("no <time> with datetime, and the UTC time as title and text: %v", m)
	}
	js := regexp.MustCompile(`<script src="(/static/[0-9a-f]+/time\.js)" defer></script>`).FindStringSubmatch(p.body)
	if js == nil {
		t.Fatal("the page does not load time.js")
	}
	if r := b.get(js[1]); r.status != http.StatusOK || !strings.Contains(r.body, "min ago") {
		t.Fatalf("time.js: %d", r.status)
	}
	if regexp.MustCompile(`<script(?:\s[^>]*)?>[^<]`).MatchString(p.body) {
		t.Error("the page holds an inline script")
	}
}
