package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Sign-in, the session cookie, expiry, sign-out, a disabled person, and the
// rate limit on wrong passwords.

func TestSignInAndSessions(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("alice", board.RoleMember)
		b := e.browser()

		// Without a session every page sends the browser to sign in.
		if r := b.get("/w/inbox"); r.status != http.StatusSeeOther || r.header.Get("Location") != "/signin?next=%2Fw%2Finbox" {
			t.Fatalf("GET /w/inbox signed out: %d %v", r.status, r.header)
		}
		if r := b.get("/signin"); r.status != http.StatusOK || !strings.Contains(r.body, `name="handle"`) || !strings.Contains(r.body, `name="password"`) {
			t.Fatalf("sign-in page: %d", r.status)
		}

		r := b.post("/signin", url.Values{"handle": {"alice"}, "password": {testPassword}, "next": {"/w/inbox"}})
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/w/inbox" {
			t.Fatalf("sign-in: %d %v %s", r.status, r.header, r.body)
		}
		cookie := r.header.Get("Set-Cookie")
		for _, want := range []string{auth.SessionCookie + "=", "Path=/", "HttpOnly", "Secure", "SameSite=Lax", "Max-Age="} {
			if !strings.Contains(cookie, want) {
				t.Errorf("session cookie %q lacks %s", cookie, want)
			}
		}
		if strings.Contains(cookie, "Domain=") {
			t.Errorf("session cookie %q names a domain; it must be host-only", cookie)
		}
		home := b.get("/")
		if home.status != http.StatusOK || !strings.Contains(home.body, "human:alice") {
			t.Fatalf("home signed in: %d", home.status)
		}
		// The secret is stored only as its hash.
		secret := strings.TrimPrefix(strings.Split(cookie, ";")[0], auth.SessionCookie+"=")
		if _, err := e.store.GetSession(context.Background(), secret, e.clock.Now()); err == nil {
			t.Fatal("the store finds the session under its secret; it must keep only the hash")
		}
		if _, err := e.store.GetSession(context.Background(), auth.HashSecret(secret), e.clock.Now()); err != nil {
			t.Fatalf("the session is not stored under the hash of its secret: %v", err)
		}

		// Another instance on the same store accepts the session.
		other := e.browser()
		other.base = e.serve(e.store)
		other.client.Jar.SetCookies(mustURL(t, other.base), []*http.Cookie{{Name: auth.SessionCookie, Value: secret}})
		if r := other.get("/"); r.status != http.StatusOK {
			t.Fatalf("the session on another instance: %d", r.status)
		}

		// Sign-out ends it everywhere.
		if r := b.post("/signout", nil); r.status != http.StatusSeeOther || !strings.Contains(r.header.Get("Set-Cookie"), "Max-Age=0") {
			t.Fatalf("sign-out: %d %v", r.status, r.header)
		}
		if r := other.get("/"); r.status != http.StatusSeeOther {
			t.Fatalf("the signed-out session on another instance: %d, want a redirect to sign in", r.status)
		}

		// A session expires.
		b.signIn("alice", testPassword)
		e.clock.Add(auth.DefaultSessionTTL - time.Minute)
		if r := b.get("/"); r.status != http.StatusOK {
			t.Fatalf("a session a minute before expiry: %d", r.status)
		}
		e.clock.Add(2 * time.Minute)
		if r := b.get("/"); r.status != http.StatusSeeOther {
			t.Fatalf("an expired session: %d, want a redirect to sign in", r.status)
		}

		// A disabled person's session stops at once; they cannot sign in.
		b.signIn("alice", testPassword)
		admin := board.WithPrincipal(context.Background(), auth.Operator)
		if err := e.accounts.SetDisabled(admin, "alice", true); err != nil {
			t.Fatal(err)
		}
		if r := b.get("/"); r.status != http.StatusSeeOther {
			t.Fatalf("a disabled person's session: %d, want a redirect to sign in", r.status)
		}
		// ... and the form does not say so: the right password gets the
		// answer of a wrong one (only an admin tells a person they are
		// disabled).
		if r := b.post("/signin", url.Values{"handle": {"alice"}, "password": {testPassword}}); r.status != http.StatusUnauthorized ||
			!strings.Contains(r.body, "wrong handle or password") || strings.Contains(r.body, "disabled") {
			t.Fatalf("a disabled person signs in: %d", r.status)
		}
	})
}

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestWrongPasswordsAreRateLimited(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("alice", board.RoleMember)
		e.addPerson("bob", board.RoleMember)
		b := e.browser()
		for i := range auth.MaxFailures {
			r := b.post("/signin", url.Values{"handle": {"alice"}, "password": {"wrong password " + string(rune('a'+i))}})
			if r.status != http.StatusUnauthorized || !strings.Contains(r.body, "wrong handle or password") {
				t.Fatalf("wrong password #%d: %d", i+1, r.status)
			}
		}
		// An unknown handle gets the same answer as a wrong password.
		if r := b.post("/signin", url.Values{"handle": {"nobody"}, "password": {"whatever it is"}}); r.status != http.StatusUnauthorized || !strings.Contains(r.body, "wrong handle or password") {
			t.Fatalf("unknown handle: %d", r.status)
		}
		// Now even the right password is refused, on every instance.
		other := e.browser()
		other.base = e.serve(e.store)
		for _, c := range []*browser{b, other} {
			r := c.post("/signin", url.Values{"handle": {"alice"}, "password": {testPassword}})
			if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" || !strings.Contains(r.body, "too many sign-in attempts") {
				t.Fatalf("right password after %d failures: %d %s", auth.MaxFailures, r.status, r.header)
			}
		}
		// Another handle is not affected.
		if r := b.post("/signin", url.Values{"handle": {"bob"}, "password": {testPassword}}); r.status != http.StatusSeeOther {
			t.Fatalf("bob's sign-in: %d", r.status)
		}
		// After the window, the right password works again.
		e.clock.Add(auth.FailureWindow + time.Second)
		b.signIn("alice", testPassword)
	})
}
