package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Each form writes through the use cases, as the signed-in person with
// source web; a form submitted twice writes once.

func TestTicketForms(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("alice", board.RoleMember)
		b := e.browser()
		b.signIn("alice", testPassword)
		ctx := context.Background()

		page := b.get("/w/inbox")
		rid := formRequestID(t, page.body, "/w/inbox/tickets")
		create := url.Values{"request_id": {rid}, "title": {"Fix the login page"}, "body": {"It **breaks** on phones."},
			"priority": {"high"}, "owner": {"human:alice"}, "due": {"2026-12-24"}, "tags": {"ui, bug"},
			"links": {"https://example.com/spec | Spec\narticle KB-7 | Runbook"}}
		r := b.post("/w/inbox/tickets", create)
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/tickets/inbox-1" {
			t.Fatalf("create: %d %v %s", r.status, r.header, r.body)
		}
		d, err := e.svc.GetTicket(ctx, board.TicketIDInput{ID: "inbox-1"})
		if err != nil {
			t.Fatal(err)
		}
		tk := d.Ticket
		if tk.Title != "Fix the login page" || tk.Priority != board.PriorityHigh || *tk.Owner != "human:alice" || *tk.Due != "2026-12-24" ||
			strings.Join(tk.Tags, ",") != "ui,bug" || tk.CreatedBy != "human:alice" || len(tk.Links) != 2 ||
			tk.Links[1] != (board.Link{Kind: "article", Ref: "KB-7", Title: "Runbook"}) {
			t.Fatalf("created ticket = %+v", tk)
		}
		if ev := d.History[0]; ev.Author != "human:alice" || ev.Source != board.SourceWeb || ev.RequestID != rid || ev.OnBehalfOf != "" {
			t.Fatalf("creation event = %+v, want author human:alice, source web, the form's request_id", ev)
		}

		// The same form again (a double click, a resubmit, the back
		// button): the same ticket, nothing new.
		if r := b.post("/w/inbox/tickets", create); r.status != http.StatusSeeOther || r.header.Get("Location") != "/tickets/inbox-1" {
			t.Fatalf("resubmitted create: %d %v", r.status, r.header)
		}
		if n := e.ticketCount("inbox"); n != 1 {
			t.Fatalf("inbox holds %d tickets after a resubmitted form, want 1", n)
		}
		// The same form with other values: refused, nothing written.
		changed := url.Values{}
		for k, v := range create {
			changed[k] = v
		}
		changed.Set("title", "Another ticket")
		if r := b.post("/w/inbox/tickets", changed); r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "Reload the page") {
			t.Fatalf("reused form with other values: %d", r.status)
		}
		if n := e.ticketCount("inbox"); n != 1 {
			t.Fatalf("inbox holds %d tickets after the refused form, want 1", n)
		}
		// Bad input is shown on the board, nothing written (what the form
		// shows then is TestRefusedFormKeepsInput's).
		page = b.get("/w/inbox")
		bad := url.Values{"request_id": {formRequestID(t, page.body, "/w/inbox/tickets")}, "title": {"   "}}
		if r := b.post("/w/inbox/tickets", bad); r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "title") {
			t.Fatalf("blank title: %d", r.status)
		}

		// Edit: only what changed is recorded; links untouched stay.
		tp := b.get("/tickets/inbox-1")
		edit := url.Values{"request_id": {formRequestID(t, tp.body, "/tickets/inbox-1/edit")}, "title": {"Fix the login page on phones"},
			"body": {tk.Body}, "priority": {"urgent"}, "owner": {""}, "due": {"2026-12-24"}, "tags": {"ui bug"},
			"links": {"changed but not sent"}, "links_before": {"changed but not sent"}}
		if r := b.post("/tickets/inbox-1/edit", edit); r.status != http.StatusSeeOther {
			t.Fatalf("edit: %d %s", r.status, r.body)
		}
		d, _ = e.svc.GetTicket(ctx, board.TicketIDInput{ID: "inbox-1"})
		if d.Ticket.Title != "Fix the login page on phones" || d.Ticket.Priority != board.PriorityUrgent || d.Ticket.Owner != nil || len(d.Ticket.Links) != 2 {
			t.Fatalf("edited ticket = %+v", d.Ticket)
		}
		if ev := d.History[len(d.History)-1]; ev.Type != board.EventTicketUpdated || strings.Join(ev.Fields, ",") != "title,priority,owner" {
			t.Fatalf("edit event = %+v, want title, priority, owner changed", ev)
		}
		// The ticket page's history says what the values were and became.
		if page := b.get("/tickets/inbox-1").body; !strings.Contains(page, "priority (high → urgent)") || !strings.Contains(page, "owner (human:alice → none)") {
			t.Errorf("the ticket page's history does not show the edit's before and after values")
		}

		// Move with a reason, from the board's card form, back to the board.
		bp := b.get("/w/inbox")
		move := url.Values{"request_id": {formRequestID(t, bp.body, "/tickets/inbox-1/move")}, "status": {"doing"}, "reason": {"started"}, "return_to": {"/w/inbox"}}
		if r := b.post("/tickets/inbox-1/move", move); r.status != http.StatusSeeOther || r.header.Get("Location") != "/w/inbox" {
			t.Fatalf("move: %d %v", r.status, r.header)
		}
		b.post("/tickets/inbox-1/move", move) // again: replayed
		d, _ = e.svc.GetTicket(ctx, board.TicketIDInput{ID: "inbox-1"})
		moves := 0
		for _, ev := range d.History {
			if ev.Type == board.EventTicketMoved {
				moves++
				if ev.Reason != "started" || ev.To != "doing" {
					t.Fatalf("move event = %+v", ev)
				}
			}
		}
		if d.Ticket.Status != board.StatusDoing || moves != 1 {
			t.Fatalf("after the move (sent twice): status %s, %d move events; want doing, 1", d.Ticket.Status, moves)
		}
		// A redirect target is a path on this site only.
		move2 := url.Values{"request_id": {"web-offsite"}, "status": {"hold"}, "return_to": {"//evil.example/x"}}
		if r := b.post("/tickets/inbox-1/move", move2); r.header.Get("Location") != "/tickets/inbox-1" {
			t.Fatalf("move with an off-site return_to redirected to %q", r.header.Get("Location"))
		}

		// Note, twice: one note, rendered as Markdown on the page.
		tp = b.get("/tickets/inbox-1")
		note := url.Values{"request_id": {formRequestID(t, tp.body, "/tickets/inbox-1/notes")}, "body": {"Looked at it: **CSS** grid."}}
		for range 2 {
			if r := b.post("/tickets/inbox-1/notes", note); r.status != http.StatusSeeOther {
				t.Fatalf("note: %d", r.status)
			}
		}
		d, _ = e.svc.GetTicket(ctx, board.TicketIDInput{ID: "inbox-1"})
		if len(d.Notes) != 1 || d.Notes[0].Author != "human:alice" || d.Notes[0].Source != board.SourceWeb {
			t.Fatalf("notes = %+v, want one by human:alice from web", d.Notes)
		}
		if tp := b.get("/tickets/inbox-1"); !strings.Contains(tp.body, "<strong>CSS</strong>") {
			t.Fatal("the note's Markdown is not rendered on the ticket page")
		}
	})
}

// Submissions of one form sent together (a double click, or more) make one
// ticket, and every answer leads to it: the later ones replay the first.
// One server's store orders them; instances racing without a shared lock
// are storetest.RunShared's.
func TestDoubleSubmitWritesOnce(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeLoopback)
		b := e.browser()
		page := b.get("/w/inbox")
		form := url.Values{"request_id": {formRequestID(t, page.body, "/w/inbox/tickets")}, "title": {"Clicked twice"}}
		var wg sync.WaitGroup
		locs := make([]string, 8)
		gate := make(chan struct{})
		for i := range locs {
			wg.Go(func() {
				<-gate
				locs[i] = b.post("/w/inbox/tickets", form).header.Get("Location")
			})
		}
		close(gate)
		wg.Wait()
		for _, l := range locs {
			if l != "/tickets/inbox-1" {
				t.Fatalf("answers %v, want every one to lead to inbox-1", locs)
			}
		}
		if n := e.ticketCount("inbox"); n != 1 {
			t.Fatalf("%d tickets after 8 submissions of one form, want 1", n)
		}
	})
}

// Every form the board renders carries a fresh request_id.
func TestFormsCarryFreshRequestIDs(t *testing.T) {
	e := newEnv(t, "sqlite", auth.ModeLoopback)
	b := e.browser()
	b.post("/w/inbox/tickets", url.Values{"request_id": {"seed"}, "title": {"x"}})
	seen := map[string]bool{}
	for _, path := range []string{"/", "/w/inbox", "/w/inbox", "/tickets/inbox-1", "/tickets/inbox-1", "/w/inbox/settings"} {
		body := b.get(path).body
		forms := regexp.MustCompile(`(?s)<form method="post".*?</form>`).FindAllString(body, -1)
		for _, f := range forms {
			if strings.Contains(f, `action="/signout"`) {
				continue
			}
			m := requestIDField.FindStringSubmatch(f)
			if m == nil {
				t.Fatalf("%s: a form without request_id: %s", path, f)
			}
			if seen[m[1]] {
				t.Fatalf("%s: request_id %s rendered twice", path, m[1])
			}
			seen[m[1]] = true
		}
	}
	if len(seen) < 10 {
		t.Fatalf("only %d forms seen", len(seen))
	}
}

// Workspaces: any person creates one; settings and ai_policy are for admins.
func TestWorkspaceFormsAndPolicy(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("root", board.RoleAdmin)
		e.addPerson("mia", board.RoleMember)
		member, admin := e.browser(), e.browser()
		member.signIn("mia", testPassword)
		admin.signIn("root", testPassword)
		ctx := context.Background()

		// People see every workspace, hidden ones too, labelled.
		home := member.get("/")
		for _, want := range []string{"/w/private", "hidden from AI", "AI reads only", "AI reads and writes"} {
			if !strings.Contains(home.body, want) {
				t.Errorf("home page lacks %q", want)
			}
		}
		create := url.Values{"request_id": {formRequestID(t, home.body, "/workspaces")}, "slug": {"ops"}, "name": {"Operations"}, "ai_policy": {"read_only"}}
		for range 2 {
			if r := member.post("/workspaces", create); r.status != http.StatusSeeOther || r.header.Get("Location") != "/w/ops" {
				t.Fatalf("create workspace: %d %v %s", r.status, r.header, r.body)
			}
		}
		w, err := e.store.GetWorkspace(ctx, "ops")
		if err != nil || w.Name != "Operations" || w.AIPolicy != board.PolicyReadOnly {
			t.Fatalf("ops = %+v, %v", w, err)
		}
		if evs, _ := e.store.ListEvents(ctx, "ops", 10); len(evs) != 1 {
			t.Fatalf("%d events for ops after one form sent twice, want 1", len(evs))
		}

		// A member may not change settings; the page says so.
		sp := member.get("/w/ops/settings")
		if strings.Contains(sp.body, `action="/w/ops/settings"`) || !strings.Contains(sp.body, "Only admins") {
			t.Fatal("a member is offered the settings form")
		}
		upd := url.Values{"request_id": {"web-member-try"}, "name": {"Mine"}, "ai_policy": {"read_write"}}
		if r := member.post("/w/ops/settings", upd); r.status != http.StatusForbidden {
			t.Fatalf("a member changes settings: %d", r.status)
		}
		if w, _ := e.store.GetWorkspace(ctx, "ops"); w.AIPolicy != board.PolicyReadOnly || w.Name != "Operations" {
			t.Fatalf("after a member's refused change ops = %+v", w)
		}
		// An admin may.
		sp = admin.get("/w/ops/settings")
		upd = url.Values{"request_id": {formRequestID(t, sp.body, "/w/ops/settings")}, "name": {"Ops"}, "ai_policy": {"hidden"}}
		if r := admin.post("/w/ops/settings", upd); r.status != http.StatusSeeOther {
			t.Fatalf("an admin changes settings: %d %s", r.status, r.body)
		}
		if w, _ := e.store.GetWorkspace(ctx, "ops"); w.AIPolicy != board.PolicyHidden || w.Name != "Ops" {
			t.Fatalf("after the admin's change ops = %+v", w)
		}
		// The board itself stays visible to people.
		if bp := member.get("/w/ops"); bp.status != http.StatusOK || !strings.Contains(bp.body, "hidden from AI") {
			t.Fatalf("a person's view of a hidden workspace: %d", bp.status)
		}
	})
}
