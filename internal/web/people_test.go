package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

var invitationLink = regexp.MustCompile(`value="(http://[^"]+/invite/([A-Za-z0-9_-]{43}))"`)
var formSecret = regexp.MustCompile(`name="secret" value="([A-Za-z0-9_-]{43})"`)

// Admins add people with an invitation link; the link sets a password
// once, within 7 days; people can be disabled and enabled; links revoked.
func TestPeopleAndInvitations(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("root", board.RoleAdmin)
		e.addPerson("mia", board.RoleMember)
		admin, member := e.browser(), e.browser()
		admin.signIn("root", testPassword)
		member.signIn("mia", testPassword)

		// Members have no people page and cannot add anyone.
		if r := member.get("/people"); r.status != http.StatusForbidden {
			t.Fatalf("a member's people page: %d", r.status)
		}
		if r := member.post("/people", url.Values{"handle": {"eve"}}); r.status != http.StatusForbidden {
			t.Fatalf("a member adds a person: %d", r.status)
		}

		page := admin.get("/people")
		secret := formSecret.FindStringSubmatch(page.body)[1]
		add := url.Values{"handle": {"newbie"}, "name": {"New Bie"}, "secret": {secret}}
		r := admin.post("/people", add)
		m := invitationLink.FindStringSubmatch(r.body)
		if r.status != http.StatusOK || m == nil {
			t.Fatalf("add a person: %d, no invitation link on the page", r.status)
		}
		link, token := m[1], m[2]
		// The form again (double click): the same link, still one person.
		again := admin.post("/people", add)
		if m2 := invitationLink.FindStringSubmatch(again.body); again.status != http.StatusOK || m2 == nil || m2[1] != link {
			t.Fatalf("the add form again: %d, want the same link", again.status)
		}
		people, _ := e.store.ListPeople(context.Background())
		if len(people) != 3 {
			t.Fatalf("%d people after one add sent twice, want 3", len(people))
		}
		// Only the token's hash is stored.
		if _, err := e.store.GetInvitation(context.Background(), token, e.clock.Now()); err == nil {
			t.Fatal("the invitation is stored under its secret")
		}
		if !strings.Contains(admin.get("/people").body, "newbie") {
			t.Fatal("the pending invitation is not listed")
		}

		// The link: the page, then a password, once.
		guest := e.browser()
		path := strings.TrimPrefix(link, e.url)
		if r := guest.get(path); r.status != http.StatusOK || !strings.Contains(r.body, "Welcome, newbie") {
			t.Fatalf("invitation page: %d", r.status)
		}
		if r := guest.post(path, url.Values{"password": {"short"}, "password_again": {"short"}}); r.status != http.StatusBadRequest {
			t.Fatalf("a short password: %d", r.status)
		}
		if r := guest.post(path, url.Values{"password": {"a new long password"}, "password_again": {"another one"}}); r.status != http.StatusBadRequest {
			t.Fatalf("two different passwords: %d", r.status)
		}
		r = guest.post(path, url.Values{"password": {"a new long password"}, "password_again": {"a new long password"}})
		if r.status != http.StatusSeeOther || !strings.Contains(r.header.Get("Set-Cookie"), auth.SessionCookie) {
			t.Fatalf("set password: %d %v", r.status, r.header)
		}
		if home := guest.get("/"); home.status != http.StatusOK || !strings.Contains(home.body, "human:newbie") {
			t.Fatalf("signed in after the invitation: %d", home.status)
		}
		// Single use.
		other := e.browser()
		if r := other.get(path); r.status != http.StatusNotFound || !strings.Contains(r.body, "has been used") {
			t.Fatalf("a used link: %d", r.status)
		}
		if r := other.post(path, url.Values{"password": {"taking it over!!"}, "password_again": {"taking it over!!"}}); r.status != http.StatusNotFound {
			t.Fatalf("a used link posted: %d", r.status)
		}
		other.signIn("newbie", "a new long password")

		// A new link for newbie expires after 7 days.
		page = admin.get("/people")
		i := strings.Index(page.body, `action="/people/newbie/invite"`)
		inv := admin.post("/people/newbie/invite", url.Values{"secret": {formSecret.FindStringSubmatch(page.body[i:])[1]}})
		m = invitationLink.FindStringSubmatch(inv.body)
		if m == nil {
			t.Fatalf("new link: %d", inv.status)
		}
		path = strings.TrimPrefix(m[1], e.url)
		e.clock.Add(auth.DefaultInvitationTTL + time.Second)
		if r := e.browser().get(path); r.status != http.StatusNotFound || !strings.Contains(r.body, "expired") {
			t.Fatalf("an expired link: %d", r.status)
		}
		e.clock.Add(-auth.DefaultInvitationTTL)

		// Revoke a link.
		page = admin.get("/people")
		rev := regexp.MustCompile(`/invitations/([0-9a-f]{64})/revoke`).FindStringSubmatch(page.body)
		if rev == nil {
			t.Fatal("no pending invitation to revoke")
		}
		if r := admin.post("/invitations/"+rev[1]+"/revoke", nil); r.status != http.StatusSeeOther {
			t.Fatalf("revoke: %d", r.status)
		}
		if r := e.browser().get(path); r.status != http.StatusNotFound {
			t.Fatalf("a revoked link: %d", r.status)
		}

		// Disable and enable; an admin cannot disable themselves.
		// The table's button asks first; only the confirmed form disables.
		if r := admin.post("/people/mia/disable", nil); r.status != http.StatusOK || !strings.Contains(r.body, `id="confirm-action"`) {
			t.Fatalf("disable without confirmation: %d, want the confirmation page", r.status)
		}
		if r := member.get("/"); r.status != http.StatusOK {
			t.Fatalf("an unconfirmed disable signed the member out: %d", r.status)
		}
		if r := admin.post("/people/mia/disable", confirm); r.status != http.StatusSeeOther || r.header.Get("Location") != "/people?done=disabled" {
			t.Fatalf("disable: %d to %q", r.status, r.header.Get("Location"))
		}
		if page := admin.get("/people?done=disabled").body; !strings.Contains(page, `<div class="notice" role="status">Disabled`) {
			t.Fatal("no message after disabling")
		}
		if r := member.get("/"); r.status != http.StatusSeeOther {
			t.Fatalf("a disabled member's page: %d", r.status)
		}
		if r := admin.post("/people/root/disable", confirm); r.status != http.StatusBadRequest {
			t.Fatalf("an admin disables themselves: %d", r.status)
		}
		admin.post("/people/mia/enable", nil)
		member.signIn("mia", testPassword)
	})
}
