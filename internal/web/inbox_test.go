package web_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The Inbox page (inbox.go): the signed-in person's own items, newest
// first, marked read one at a time or all at once through MarkInboxRead
// under the form's request_id; the header's unread count on every page,
// capped at "99+", and the inbox's change marker that keeps it live.

// agentOf is alice's (or bob's) agent, as MCP with a token would be.
func agentOf(person string) context.Context {
	return board.WithPrincipal(context.Background(), board.Principal{Author: "ai:claude", OnBehalfOf: "human:" + person, Source: board.SourceMCP})
}

// helper is an agent acting for nobody.
var helper = board.WithPrincipal(context.Background(), board.Principal{Author: "ai:helper", Source: board.SourceMCP})

// mustTicket creates a ticket in inbox and returns its id.
func (e *env) mustTicket(ctx context.Context, requestID, title, body string) string {
	e.t.Helper()
	res, err := e.svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: requestID, Workspace: "inbox", NewTicket: board.NewTicket{Title: title, Body: body}})
	if err != nil {
		e.t.Fatal(err)
	}
	return res.Ticket.ID
}

// mustNote adds a note.
func (e *env) mustNote(ctx context.Context, requestID, id, body string) {
	e.t.Helper()
	if _, err := e.svc.AddNote(ctx, board.AddNoteInput{RequestID: requestID, ID: id, Body: body}); err != nil {
		e.t.Fatal(err)
	}
}

var (
	inboxItemRE   = regexp.MustCompile(`<li id="inbox-item-([0-9a-f-]+)" class="inbox-item( unread)?">`)
	unreadCountRE = regexp.MustCompile(`<span class="unread-count" id="unread-count"><span class="sr">, </span>([0-9+&#;]+)<span class="sr"> unread</span></span>`)
)

// shownItems are the ids of the items a page lists, in order, with
// whether each is marked unread.
func shownItems(page string) (ids []string, unread map[string]bool) {
	unread = map[string]bool{}
	for _, m := range inboxItemRE.FindAllStringSubmatch(page, -1) {
		ids = append(ids, m[1])
		unread[m[1]] = m[2] != ""
	}
	return ids, unread
}

// headerCount is the unread count the header shows ("" for none).
func headerCount(t *testing.T, page string) string {
	t.Helper()
	if !strings.Contains(page, `id="nav-inbox"`) {
		t.Fatal("the header has no live Inbox link")
	}
	if m := unreadCountRE.FindStringSubmatch(page); m != nil {
		return html.UnescapeString(m[1])
	}
	return ""
}

// itemOf is the part of the page that shows one item.
func itemOf(t *testing.T, page, id string) string {
	t.Helper()
	i := strings.Index(page, `<li id="inbox-item-`+id+`"`)
	if i < 0 {
		t.Fatalf("item %s is not on the page", id)
	}
	return page[i : i+strings.Index(page[i:], "</li>")]
}

func TestInboxShowsTheCallersOwnItems(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("alice", board.RoleMember)
		e.addPerson("bob", board.RoleMember)
		asked := e.mustTicket(agentOf("alice"), "c1", "Pick a colour", "")
		e.mustNote(agentOf("alice"), "n1", asked, "@alice blue or green?")
		secret := e.mustTicket(helper, "c2", "Budget for bob only", "")
		e.mustNote(helper, "n2", secret, "@bob the numbers are in")
		e.mustNote(agentOf("alice"), "n3", asked, "and @alice, which shade?")

		b := e.browser()
		b.signIn("alice", testPassword)
		p := b.get("/inbox")
		if p.status != http.StatusOK {
			t.Fatalf("/inbox: %d %s", p.status, p.body)
		}
		ids, unread := shownItems(p.body)
		if len(ids) != 2 || !unread[ids[0]] || !unread[ids[1]] {
			t.Fatalf("alice's inbox lists %v (unread %v), want her two mentions, unread", ids, unread)
		}
		newest := itemOf(t, p.body, ids[0])
		for _, want := range []string{"ai:claude for human:alice", "mentioned you in a note", `href="/tickets/` + asked + `"`, "Pick a colour", `<time class="ago"`, `action="/inbox/read"`} {
			if !strings.Contains(newest, want) {
				t.Errorf("the newest item lacks %q:\n%s", want, newest)
			}
		}
		if strings.Contains(p.body, "Budget for bob only") || strings.Contains(p.body, secret) {
			t.Error("alice's inbox shows bob's item")
		}
		if got := headerCount(t, p.body); got != "2" {
			t.Errorf("the header's count on the Inbox: %q, want 2", got)
		}
		if got := headerCount(t, b.get("/w/inbox").body); got != "2" {
			t.Errorf("the header's count on a board: %q, want 2", got)
		}

		bb := e.browser()
		bb.signIn("bob", testPassword)
		pb := bb.get("/inbox")
		bobIDs, _ := shownItems(pb.body)
		if len(bobIDs) != 1 || !strings.Contains(pb.body, "Budget for bob only") || strings.Contains(pb.body, "Pick a colour") {
			t.Fatalf("bob's inbox lists %v: want his one mention, none of alice's", bobIDs)
		}
		// bob cannot mark alice's items: ids not in his inbox change nothing.
		r := bb.post("/inbox/read", url.Values{"request_id": {"web-bob-1"}, "ids": {ids[0]}})
		if r.status != http.StatusSeeOther {
			t.Fatalf("bob's mark of alice's item: %d %s", r.status, r.body)
		}
		if _, unread := shownItems(b.get("/inbox").body); !unread[ids[0]] {
			t.Error("bob's mark read alice's item")
		}
	})
}

// markForm is the request_id of the Mark read form of one item.
func markForm(t *testing.T, page, id string) string {
	t.Helper()
	m := requestIDField.FindStringSubmatch(itemOf(t, page, id))
	if m == nil {
		t.Fatalf("item %s has no Mark read form", id)
	}
	return m[1]
}

func TestInboxMarkReadAndMarkAllRead(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("alice", board.RoleMember)
		id := e.mustTicket(helper, "c", "Renew the certificate", "")
		for i := range 3 {
			e.mustNote(helper, fmt.Sprintf("n%d", i), id, fmt.Sprintf("@alice question %d", i))
		}
		b := e.browser()
		b.signIn("alice", testPassword)
		p := b.get("/inbox?unread=1")
		ids, _ := shownItems(p.body)
		if len(ids) != 3 {
			t.Fatalf("want 3 items, got %v", ids)
		}

		// Mark one read, from the unread-only page: back to it, one fewer.
		form := url.Values{"request_id": {markForm(t, p.body, ids[1])}, "ids": {ids[1]}, "back": {"/inbox?unread=1"}}
		r := b.post("/inbox/read", form)
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/inbox?unread=1" {
			t.Fatalf("mark read: %d %v", r.status, r.header)
		}
		again := b.post("/inbox/read", form) // the same form again: answered, nothing more
		if again.status != http.StatusSeeOther {
			t.Fatalf("the same mark again: %d %s", again.status, again.body)
		}
		p = b.get("/inbox")
		_, unread := shownItems(p.body)
		if unread[ids[1]] || !unread[ids[0]] || !unread[ids[2]] {
			t.Fatalf("after marking %s read: %v", ids[1], unread)
		}
		if strings.Contains(itemOf(t, p.body, ids[1]), `action="/inbox/read"`) {
			t.Error("a read item still offers Mark read")
		}
		if got := headerCount(t, p.body); got != "2" {
			t.Errorf("the count after one mark: %q, want 2", got)
		}
		// The form's request_id with other items: refused, with the page.
		reused := b.post("/inbox/read", url.Values{"request_id": form["request_id"], "ids": {ids[0]}})
		if reused.status == http.StatusSeeOther || !strings.Contains(reused.body, "already submitted") || !strings.Contains(reused.body, `id="inbox-list"`) {
			t.Fatalf("a reused request_id: %d, want the Inbox with the refusal", reused.status)
		}
		if r := b.get("/inbox/read"); r.status != http.StatusSeeOther || r.header.Get("Location") != "/inbox" {
			t.Errorf("GET /inbox/read: %d %v, want the Inbox", r.status, r.header)
		}
		bad := b.post("/inbox/read", url.Values{"request_id": {"web-bad"}, "ids": {"not-an-id"}})
		if bad.status != http.StatusBadRequest || !strings.Contains(bad.body, "is not an inbox item") {
			t.Fatalf("a bad id: %d", bad.status)
		}

		// Mark all read, exactly once: the form sent again after a new
		// mention answers the first answer and leaves the new one unread.
		all := url.Values{"request_id": {formRequestID(t, p.body, "/inbox/read")}, "all": {"1"}, "back": {"https://evil.example/inbox"}}
		r = b.post("/inbox/read", all)
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/inbox?done=inbox-read" {
			t.Fatalf("mark all read: %d %v", r.status, r.header)
		}
		p = b.get(r.header.Get("Location"))
		if got := headerCount(t, p.body); got != "" {
			t.Errorf("the count after Mark all read: %q, want none", got)
		}
		if !strings.Contains(p.body, "Everything in your inbox is marked read.") || strings.Contains(p.body, `id="mark-all-read"`) {
			t.Error("after Mark all read the page does not say so, or still offers it")
		}
		e.mustNote(helper, "n-late", id, "@alice one more")
		if r := b.post("/inbox/read", all); r.status != http.StatusSeeOther {
			t.Fatalf("Mark all read sent again: %d", r.status)
		}
		list, err := e.svc.ListInbox(board.WithPrincipal(context.Background(), board.Principal{Author: "human:alice", Source: board.SourceWeb}), board.ListInboxInput{UnreadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if list.Unread != 1 || len(list.Items) != 1 {
			t.Fatalf("after Mark all read was sent again: %d unread, want the new mention alone", list.Unread)
		}
	})
}

func TestInboxCountIsCappedAt99Plus(t *testing.T) {
	e := newEnv(t, "sqlite", auth.ModeRequired)
	e.addPerson("alice", board.RoleMember)
	b := e.browser()
	b.signIn("alice", testPassword)
	for i := range 99 {
		e.mustTicket(helper, fmt.Sprintf("c%d", i), fmt.Sprintf("Question %d", i), "@alice have a look")
	}
	if got := headerCount(t, b.get("/").body); got != "99" {
		t.Fatalf("the count at 99 unread: %q", got)
	}
	e.mustTicket(helper, "c99", "Question 99", "@alice have a look")
	e.mustTicket(helper, "c100", "Question 100", "@alice have a look")
	p := b.get("/inbox")
	if got := headerCount(t, p.body); got != "99+" {
		t.Fatalf("the count at 101 unread: %q, want 99+", got)
	}
	if !strings.Contains(html.UnescapeString(p.body), "99+ unread") {
		t.Error("the Inbox does not say 99+ unread")
	}
	ids, _ := shownItems(p.body)
	if len(ids) != 30 || !strings.Contains(p.body, `rel="next"`) {
		t.Fatalf("the first page lists %d items, want 30 and a link to older ones", len(ids))
	}
	next := regexp.MustCompile(`<a href="([^"]+)" rel="next">`).FindStringSubmatch(p.body)[1]
	older, _ := shownItems(b.get(strings.ReplaceAll(next, "&amp;", "&")).body)
	if len(older) != 30 || older[0] == ids[0] || older[0] > ids[29] {
		t.Fatalf("the older page starts at %v, after %s", older[:1], ids[29])
	}
}

// The header's count follows the count's marker on every page, and the
// Inbox page (its link with it) the inbox's marker: unchanged, 304; a new
// mention or a mark changes them. An item that arrives while another is
// marked read leaves the count as it was, and the number shown right; the
// Inbox's list learns of it from its own marker.
func TestInboxMarkersFollowItemsAndMarks(t *testing.T) {
	e := newEnv(t, "sqlite", auth.ModeRequired)
	e.addPerson("alice", board.RoleMember)
	b := e.browser()
	b.signIn("alice", testPassword)
	live := func(page, id string) (marker, etag, rest string) {
		t.Helper()
		m := regexp.MustCompile(`id="` + id + `"[^>]*? data-live-marker="([^"]+)" data-live-etag="([^"]+)"([^>]*)>`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("#%s does not follow a marker", id)
		}
		return m[1], `"` + m[2] + `"`, m[3]
	}
	marker, count, rest := live(b.get("/w/inbox").body, "nav-inbox")
	if marker != "/inbox/count/changes" || rest != ` data-live-page="/inbox/count"` {
		t.Fatalf("a board's Inbox link follows %s%s, want the count's marker and page", marker, rest)
	}
	b.unchanged("nothing happened", marker, count)
	id := e.mustTicket(helper, "c", "Ask alice", "")
	e.mustNote(helper, "n1", id, "@alice please")
	count = b.changed("a mention", marker, count)
	b.unchanged("nothing more", marker, count)
	if got := headerCount(t, b.get("/inbox/count").body); got != "1" {
		t.Fatalf("the count page shows %q", got)
	}

	p := b.get("/inbox")
	link, inbox, rest := live(p.body, "nav-inbox")
	list, listTag, _ := live(p.body, "inbox-page")
	if link != "/inbox/changes" || list != link || listTag != inbox || rest != "" {
		t.Fatalf("on the Inbox the link follows %s%s and the list %s: want both the inbox's marker, fetching the page itself", link, rest, list)
	}
	ids, _ := shownItems(p.body)
	e.mustNote(helper, "n2", id, "@alice and another thing")
	b.post("/inbox/read", url.Values{"request_id": {markForm(t, p.body, ids[0])}, "ids": {ids[0]}})
	b.unchanged("one read, one new: the count", marker, count)
	inbox = b.changed("one read, one new: the Inbox", link, inbox)
	b.post("/inbox/read", url.Values{"request_id": {formRequestID(t, b.get("/inbox").body, "/inbox/read")}, "all": {"1"}})
	b.changed("mark all read: the count", marker, count)
	b.changed("mark all read: the Inbox", link, inbox)
}

// The old "Waiting for me" address leads to the Inbox, whose "Waiting for
// you" section shows what it showed: the tickets waiting for a person that
// are the person's, any person's or no one's, across workspaces.
func TestInboxShowsWhatWaits(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("alice", board.RoleMember)
		e.addPerson("bob", board.RoleMember)
		b := e.browser()
		b.signIn("alice", testPassword)
		if _, err := e.svc.CreateWorkspace(board.WithPrincipal(context.Background(), board.Principal{Author: "human:alice", Source: board.SourceWeb}),
			board.CreateWorkspaceInput{RequestID: "w", Slug: "ops", Name: "Operations", AIPolicy: board.PolicyReadWrite}); err != nil {
			t.Fatal(err)
		}
		tickets := []struct {
			ws, title, owner string
			status           board.Status
		}{
			{"inbox", "mine waiting", "human:alice", board.StatusWaitingHuman},
			{"ops", "nobody's waiting", "", board.StatusWaitingHuman},
			{"ops", "any person's waiting", "human", board.StatusWaitingHuman},
			{"inbox", "bob's waiting", "human:bob", board.StatusWaitingHuman},
			{"inbox", "mine but doing", "human:alice", board.StatusDoing},
		}
		for i, tk := range tickets {
			res, err := e.svc.CreateTicket(helper, board.CreateTicketInput{RequestID: fmt.Sprintf("c%d", i), Workspace: tk.ws, NewTicket: board.NewTicket{Title: tk.title, Owner: tk.owner}})
			if err != nil {
				t.Fatal(i, err)
			}
			if _, err := e.svc.MoveTicket(helper, board.MoveTicketInput{RequestID: fmt.Sprintf("m%d", i), ID: res.Ticket.ID, Status: tk.status}); err != nil {
				t.Fatal(i, err)
			}
		}
		if !strings.Contains(b.get("/").body, `<a href="/inbox" id="nav-inbox"`) {
			t.Fatal("the navigation does not link the Inbox")
		}
		old := b.get("/waiting")
		if old.status != http.StatusMovedPermanently || old.header.Get("Location") != "/inbox" {
			t.Fatalf("/waiting: %d %v, want a permanent redirect to /inbox", old.status, old.header)
		}
		waiting := func(b *browser) string {
			p := b.get("/inbox")
			if p.status != http.StatusOK {
				t.Fatalf("/inbox: %d", p.status)
			}
			i := strings.Index(p.body, `id="waiting-h"`)
			return p.body[i : i+strings.Index(p.body[i:], "</section>")]
		}
		section := waiting(b)
		for _, want := range []string{"mine waiting", "nobody&#39;s waiting", "any person&#39;s waiting"} {
			if !strings.Contains(section, want) {
				t.Errorf("Waiting for you lacks %q", want)
			}
		}
		for _, not := range []string{"bob&#39;s waiting", "mine but doing"} {
			if strings.Contains(section, not) {
				t.Errorf("Waiting for you shows %q", not)
			}
		}
		// bob sees bob's, and the unowned ones, not alice's.
		bb := e.browser()
		bb.signIn("bob", testPassword)
		section = waiting(bb)
		if !strings.Contains(section, "bob&#39;s waiting") || strings.Contains(section, "mine waiting") || !strings.Contains(section, "nobody&#39;s waiting") {
			t.Error("bob's Waiting for you is not bob's")
		}
	})
}
