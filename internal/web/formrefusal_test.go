package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A refused ticket form comes back in place: 422, what was typed in every
// field, the problem beside its field (aria-invalid, aria-describedby, the
// first bad field focused), nothing written, and an address that reloads.

// control is the first element of a page named name (input, select or
// textarea) after the form posting to action.
func control(t *testing.T, page, action, name string) string {
	t.Helper()
	i := strings.Index(page, `action="`+action+`"`)
	if i < 0 {
		t.Fatalf("no form posting to %s on the page", action)
	}
	m := regexp.MustCompile(`<(input|select|textarea)[^>]* name="` + name + `"[^>]*>`).FindString(page[i:])
	if m == "" {
		t.Fatalf("the form %s has no field %s", action, name)
	}
	return m
}

// marked checks that only field is marked invalid, that it names its
// message, which says want, and that it is the focused one.
func marked(t *testing.T, r response, action, form, field, want string) {
	t.Helper()
	el := control(t, r.body, action, field)
	id := form + "-" + field + "-error"
	if !strings.Contains(el, `aria-invalid="true"`) || !strings.Contains(el, `aria-describedby="`+id+`"`) || !strings.Contains(el, "autofocus") {
		t.Errorf("%s is not marked invalid, described by %s and focused: %s", field, id, el)
	}
	if n := strings.Count(r.body, `aria-invalid="true"`); n != 1 {
		t.Errorf("%d fields marked invalid, want only %s", n, field)
	}
	msg := regexp.MustCompile(`<p class="field-error" id="` + id + `">([^<]*)</p>`).FindStringSubmatch(r.body)
	if msg == nil || !strings.Contains(html.UnescapeString(msg[1]), want) {
		t.Errorf("the message beside %s = %v, want it to say %q", field, msg, want)
	}
}

func TestRefusedFormKeepsInput(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("alice", board.RoleMember)
		b := e.browser()
		b.signIn("alice", testPassword)
		const action = "/w/inbox/tickets"
		long := strings.Repeat("é", 500) // 500 characters, 1000 bytes: no cut anywhere
		cases := []struct {
			what, field, want string
			change            url.Values
		}{
			{"blank title", "title", "title must not be empty", url.Values{"title": {"   "}}},
			{"500-character title", "title", "title is 500 characters long; the limit is 200", url.Values{"title": {long}}},
			{"an owner who is nobody here", "owner", `owner "bob" must be`, url.Values{"owner": {"bob"}}},
			{"a bad due date", "due", `due "31/12/2026" is not a date`, url.Values{"due": {"31/12/2026"}}},
			{"a tag that cannot be one", "tags", `tag "c++" must be`, url.Values{"tags": {"Frontend, c++"}}},
		}
		for _, c := range cases {
			page := b.get("/w/inbox")
			rid := formRequestID(t, page.body, action)
			form := url.Values{"request_id": {rid}, "title": {"Keep what I typed"}, "body": {"A body <b>kept</b> as typed\nover two lines"},
				"priority": {"high"}, "owner": {""}, "due": {"2026-12-24"}, "tags": {"ui"}, "links": {"https://example.com/a | A"}}
			for k, v := range c.change {
				form[k] = v
			}
			r := b.post(action, form)
			if r.status != http.StatusUnprocessableEntity {
				t.Fatalf("%s: %d, want 422", c.what, r.status)
			}
			marked(t, r, action, "new", c.field, c.want)
			// Every field holds what was typed, escaped, uncut.
			for _, name := range []string{"title", "due", "tags"} {
				if el := control(t, r.body, action, name); valueOf(el) != form.Get(name) {
					t.Errorf("%s: %s lost what was typed (%q): %s", c.what, name, form.Get(name), el)
				}
			}
			if !strings.Contains(r.body, ">"+htmlEscape(form.Get("body"))+"</textarea>") || !strings.Contains(r.body, ">https://example.com/a | A</textarea>") {
				t.Errorf("%s: the description or links lost what was typed", c.what)
			}
			if !regexp.MustCompile(`<option value="high" selected>`).MatchString(r.body) {
				t.Errorf("%s: the priority typed is not selected", c.what)
			}
			if !strings.Contains(r.body, `<details class="panel" id="new-ticket" open>`) {
				t.Errorf("%s: the new-ticket form is collapsed", c.what)
			}
			if c.field == "owner" && !strings.Contains(r.body, `<option value="bob" selected>`) {
				t.Errorf("%s: the owner typed is not kept", c.what)
			}
			// The address htmx shows is the board's, which reloads.
			if got := r.header.Get("HX-Replace-Url"); got != "/w/inbox" {
				t.Errorf("%s: HX-Replace-Url = %q, want /w/inbox", c.what, got)
			}
			// The refused call wrote nothing, so the form keeps its
			// request_id: the corrected form still writes once.
			if got := formRequestID(t, r.body, action); got != rid {
				t.Errorf("%s: the form came back with request_id %s, want %s", c.what, got, rid)
			}
			if n := e.ticketCount("inbox"); n != 0 {
				t.Fatalf("%s: %d tickets written", c.what, n)
			}
		}
		// Nothing is cut, in the form or on the server: no maxlength.
		for _, path := range []string{"/", "/w/inbox", "/people", "/tokens"} {
			if p := b.get(path); strings.Contains(p.body, "maxlength") {
				t.Errorf("%s has a maxlength attribute, which cuts a paste without a word", path)
			}
		}
	})
}

// valueOf is an element's value attribute, unescaped.
func valueOf(el string) string {
	m := regexp.MustCompile(`value="([^"]*)"`).FindStringSubmatch(el)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

func htmlEscape(s string) string { return html.EscapeString(s) }

// What a person types is read kindly where the intent is plain: tags in
// any case and with spaces, an owner's bare handle.
func TestFormNormalises(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("alice", board.RoleMember)
		e.addPerson("bob", board.RoleMember)
		b := e.browser()
		b.signIn("alice", testPassword)
		page := b.get("/w/inbox")
		form := url.Values{"request_id": {formRequestID(t, page.body, "/w/inbox/tickets")}, "title": {"  Tidy  "},
			"tags": {" Frontend,  UI ui "}, "owner": {" Bob "}}
		if r := b.post("/w/inbox/tickets", form); r.status != http.StatusSeeOther {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		d, err := e.svc.GetTicket(context.Background(), board.TicketIDInput{ID: "inbox-1"})
		if err != nil {
			t.Fatal(err)
		}
		if tk := d.Ticket; tk.Title != "Tidy" || strings.Join(tk.Tags, ",") != "frontend,ui" || tk.Owner == nil || *tk.Owner != "human:bob" {
			t.Fatalf("ticket = title %q, tags %v, owner %v; want Tidy, [frontend ui], human:bob", tk.Title, tk.Tags, tk.Owner)
		}
	})
}

// The edit form and the note form come back the same way.
func TestRefusedEditAndNoteKeepInput(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("alice", board.RoleMember)
		b := e.browser()
		b.signIn("alice", testPassword)
		ctx := board.WithPrincipal(context.Background(), board.Principal{Author: "human:alice", Source: board.SourceWeb})
		if _, err := e.svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: "c", Workspace: "inbox", NewTicket: board.NewTicket{Title: "Stored title", Body: "stored body"}}); err != nil {
			t.Fatal(err)
		}
		const edit = "/tickets/inbox-1/edit"
		tp := b.get("/tickets/inbox-1")
		form := url.Values{"request_id": {formRequestID(t, tp.body, edit)}, "title": {""}, "body": {"a new body I wrote"},
			"priority": {"low"}, "owner": {""}, "due": {""}, "tags": {"x"}, "links": {""}, "links_before": {""}}
		r := b.post(edit, form)
		if r.status != http.StatusUnprocessableEntity {
			t.Fatalf("edit with an empty title: %d", r.status)
		}
		marked(t, r, edit, "edit", "title", "title must not be empty")
		if !strings.Contains(r.body, ">a new body I wrote</textarea>") || !strings.Contains(r.body, `<details class="panel" id="edit-ticket" open>`) {
			t.Error("the refused edit form lost the body typed, or is collapsed")
		}
		if valueOf(control(t, r.body, edit, "title")) != "" {
			t.Error("the refused edit form shows the stored title instead of what was typed")
		}
		if got := r.header.Get("HX-Replace-Url"); got != "/tickets/inbox-1" {
			t.Errorf("HX-Replace-Url = %q", got)
		}
		if d, _ := e.svc.GetTicket(ctx, board.TicketIDInput{ID: "inbox-1"}); d.Ticket.Title != "Stored title" || d.Ticket.Version != 1 {
			t.Fatalf("the refused edit changed the ticket: %+v", d.Ticket)
		}

		const notes = "/tickets/inbox-1/notes"
		tp = b.get("/tickets/inbox-1")
		long := strings.Repeat("n", board.MaxNoteBody+5)
		r = b.post(notes, url.Values{"request_id": {formRequestID(t, tp.body, notes)}, "body": {long}})
		if r.status != http.StatusUnprocessableEntity {
			t.Fatalf("a note too long: %d", r.status)
		}
		marked(t, r, notes, "note", "body", "body is 10005 characters long; the limit is 10000")
		if !strings.Contains(r.body, ">"+long+"</textarea>") {
			t.Error("the refused note was cut or lost")
		}
	})
}

// Every URL a form posts to answers GET with the page that holds the form:
// the address bar may show it after a refused form, and a reload or a
// bookmark there is never a 404.
func TestFormURLsAnswerGet(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("root", board.RoleAdmin)
		e.addPerson("bob", board.RoleMember)
		b := e.browser()
		b.signIn("root", testPassword)
		ctx := board.WithPrincipal(context.Background(), board.Principal{Author: "human:root", Source: board.SourceWeb})
		if _, err := e.svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: "c", Workspace: "inbox", NewTicket: board.NewTicket{Title: "t"}}); err != nil {
			t.Fatal(err)
		}
		b.post("/tokens", url.Values{"request_id": {"web-tok"}, "label": {"a token"}})
		actions := map[string]bool{}
		for _, path := range []string{"/", "/w/inbox", "/tickets/inbox-1", "/w/inbox/settings", "/people", "/tokens", "/tasks"} {
			for _, m := range regexp.MustCompile(`<form method="post" action="([^"]+)"`).FindAllStringSubmatch(b.get(path).body, -1) {
				actions[m[1]] = true
			}
		}
		for _, want := range []string{"/w/inbox/tickets", "/tickets/inbox-1/edit", "/tickets/inbox-1/notes", "/tickets/inbox-1/move", "/tickets/inbox-1/assign"} {
			if !actions[want] {
				t.Errorf("no form posts to %s", want)
			}
		}
		for action := range actions {
			r := b.get(action)
			if r.status == http.StatusOK {
				continue // a page of its own (settings, people, tokens)
			}
			if r.status != http.StatusSeeOther {
				t.Errorf("GET %s: %d %q, want the page that holds its form", action, r.status, r.body)
				continue
			}
			loc := r.header.Get("Location")
			if p := b.get(loc); p.status != http.StatusOK || !strings.Contains(p.body, `action="`+action+`"`) && action != "/signout" {
				t.Errorf("GET %s leads to %s: %d, without the form", action, loc, p.status)
			}
		}
	})
}

// The new-workspace form comes back the same way, a slug that is taken
// marked on the slug (409: the board's state refuses it, not the input).
func TestRefusedWorkspaceFormKeepsInput(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("alice", board.RoleMember)
		b := e.browser()
		b.signIn("alice", testPassword)
		const action = "/workspaces"
		cases := []struct {
			slug, name, field, want string
			status                  int
		}{
			{"Ops Team", "Operations", "slug", `workspace "Ops Team" is not a valid slug`, http.StatusUnprocessableEntity},
			{"ops", strings.Repeat("n", 101), "name", "name is 101 characters long; the limit is 100", http.StatusUnprocessableEntity},
			{"inbox", "Operations", "slug", "workspace 'inbox' exists already; choose another slug", http.StatusConflict},
		}
		for _, c := range cases {
			home := b.get("/")
			form := url.Values{"request_id": {formRequestID(t, home.body, action)}, "slug": {c.slug}, "name": {c.name}, "ai_policy": {"read_only"}}
			r := b.post(action, form)
			if r.status != c.status {
				t.Fatalf("%s/%s: %d, want %d", c.slug, c.field, r.status, c.status)
			}
			marked(t, r, action, "workspace", c.field, c.want)
			if valueOf(control(t, r.body, action, "slug")) != c.slug || valueOf(control(t, r.body, action, "name")) != c.name ||
				!strings.Contains(r.body, `<option value="read_only" selected>`) || !strings.Contains(r.body, `id="new-workspace" open`) {
				t.Errorf("%s/%s: the refused form lost what was typed", c.slug, c.field)
			}
			if got := r.header.Get("HX-Replace-Url"); got != "/" {
				t.Errorf("HX-Replace-Url = %q", got)
			}
		}
		if _, err := e.store.GetWorkspace(context.Background(), "ops"); err == nil {
			t.Fatal("a refused form created ops")
		}
	})
}
