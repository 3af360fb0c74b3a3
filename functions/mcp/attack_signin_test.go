package main

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	ledgerauth "github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// Sign-in and sessions under attack, against the composition root in
// required mode, on SQLite, minidyn and moto (e2eStore).

// attackHandlers builds n instances of the server on one store, counting
// every password check on any of them in checks, with alice as a person.
func attackHandlers(t *testing.T, store storetest.Store, n int, checks *atomic.Int32) []http.Handler {
	t.Helper()
	cfg := config{Auth: ledgerauth.ModeRequired, BaseURL: "http://127.0.0.1:8080", Retention: 24 * time.Hour, Store: storeSQLite,
		passwordChecked: func() { checks.Add(1) }}
	var hs []http.Handler
	for range n {
		h, err := newHandler(cfg, store, slog.New(slog.DiscardHandler), mcpserver.HandlerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	pw := e2ePassword
	if _, err := ledgerauth.NewAccounts(ledgerauth.Config{Store: store}).AddPerson(board.WithPrincipal(context.Background(), ledgerauth.Operator),
		ledgerauth.AddPersonInput{Handle: "alice", Password: &pw}); err != nil {
		t.Fatal(err)
	}
	return hs
}

func signInRequest(handle, password, from string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/signin",
		strings.NewReader(url.Values{"handle": {handle}, "password": {password}}.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	r.RemoteAddr = from
	return r
}

// The sign-in limit used to be read before the hash and written after it:
// 100 simultaneous sign-ins, 99 wrong and 1 right, all got their password
// checked and the right one signed in. Now the attempt is reserved in the
// store before the hash: across two instances and 100 client addresses, at
// most MaxFailures wrong passwords are ever evaluated (the witness counts
// every check), and the rest are refused with 429 and Retry-After.
func TestSignInLimitHoldsUnderConcurrency(t *testing.T) {
	for _, backend := range testbackends.Names() {
		t.Run(backend, func(t *testing.T) {
			store := e2eStore(t, backend)
			var checks atomic.Int32
			hs := attackHandlers(t, store, 2, &checks)
			const n = 100
			right := rand.IntN(n)
			codes := make([]int, n)
			retry := make([]string, n)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					pw := fmt.Sprintf("wrong password %d", i)
					if i == right {
						pw = e2ePassword
					}
					req := signInRequest("alice", pw, fmt.Sprintf("192.0.2.%d:4000", i+1))
					<-start
					rec := httptest.NewRecorder()
					hs[i%2].ServeHTTP(rec, req)
					codes[i], retry[i] = rec.Code, rec.Header().Get("Retry-After")
				}()
			}
			close(start)
			wg.Wait()
			count := map[int]int{}
			for i, c := range codes {
				count[c]++
				if c == http.StatusTooManyRequests && retry[i] == "" {
					t.Errorf("request %d: 429 without Retry-After", i)
				}
			}
			wrongChecked := int(checks.Load())
			if codes[right] == http.StatusSeeOther {
				wrongChecked--
			}
			t.Logf("answers %v, password checks %d (the right one %d)", count, checks.Load(), codes[right])
			if wrongChecked > ledgerauth.MaxFailures {
				t.Fatalf("%d wrong passwords were checked, want at most %d", wrongChecked, ledgerauth.MaxFailures)
			}
			if count[http.StatusUnauthorized] > ledgerauth.MaxFailures || count[http.StatusUnauthorized]+count[http.StatusTooManyRequests]+count[http.StatusSeeOther] != n {
				t.Fatalf("answers %v: want at most %d 401, the rest 429 (and the right one 303 or 429)", count, ledgerauth.MaxFailures)
			}
		})
	}
}

// A disabled account was a password oracle: the right password answered
// 403 "disabled", a wrong one 401. Both now get the same 401.
func TestDisabledAccountIsNoPasswordOracle(t *testing.T) {
	var checks atomic.Int32
	store := e2eStore(t, "sqlite")
	h := attackHandlers(t, store, 1, &checks)[0]
	admin := board.WithPrincipal(context.Background(), ledgerauth.Operator)
	if err := ledgerauth.NewAccounts(ledgerauth.Config{Store: store}).SetDisabled(admin, "alice", true); err != nil {
		t.Fatal(err)
	}
	answer := func(pw, from string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, signInRequest("alice", pw, from))
		return rec.Code, rec.Body.String()
	}
	rc, rb := answer(e2ePassword, "192.0.2.1:1")
	wc, wb := answer("a wrong password", "192.0.2.2:1")
	if rc != http.StatusUnauthorized || wc != http.StatusUnauthorized || strings.Contains(strings.ToLower(rb), "disabled") ||
		!strings.Contains(rb, "wrong handle or password") || !strings.Contains(wb, "wrong handle or password") {
		t.Fatalf("disabled account: right password %d, wrong password %d; want the same 401 without a word of disabled\n%s", rc, wc, rb)
	}
}

// next after sign-in accepted "/\t/host/path", which a browser reads as
// another origin. Only a plain path on this origin passes now.
func TestSignInNextStaysOnThisOrigin(t *testing.T) {
	var checks atomic.Int32
	store := e2eStore(t, "sqlite")
	hs := attackHandlers(t, store, 1, &checks)
	for i, c := range []struct{ next, want string }{
		{"/w/inbox", "/w/inbox"},
		{"/tickets/inbox-1?x=1", "/tickets/inbox-1?x=1"},
		{"/\t/evil.example/path", "/"},
		{"/\n/evil.example/", "/"},
		{"/\r\n/evil.example/", "/"},
		{"//evil.example/", "/"},
		{"/\\evil.example/", "/"},
		{"/x\\y", "/"},
		{"https://evil.example/", "/"},
		{"javascript:alert(1)", "/"},
		{"/\x7f/evil.example", "/"},
		{"", "/"},
	} {
		form := url.Values{"handle": {"alice"}, "password": {e2ePassword}, "next": {c.next}}
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/signin", strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Sec-Fetch-Site", "same-origin")
		r.RemoteAddr = fmt.Sprintf("198.51.100.%d:1", i+1)
		rec := httptest.NewRecorder()
		hs[0].ServeHTTP(rec, r)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != c.want {
			t.Errorf("next=%q: %d Location %q, want 303 to %q", c.next, rec.Code, rec.Header().Get("Location"), c.want)
		}
	}
}

// A reset used to leave the old sessions alive, older links usable, and
// disable-then-enable revived sessions from before the disable. Now
// setting a password ends the person's other sessions and voids their
// other links; a disable ends sessions for good; each is in the person's
// history. On SQLite, minidyn and moto.
func TestPasswordResetEndsOtherSessions(t *testing.T) {
	for _, backend := range testbackends.Names() {
		t.Run(backend, func(t *testing.T) {
			store := e2eStore(t, backend)
			var checks atomic.Int32
			ts := httptest.NewServer(attackHandlers(t, store, 1, &checks)[0])
			t.Cleanup(ts.Close)
			accounts := ledgerauth.NewAccounts(ledgerauth.Config{Store: store})
			admin := board.WithPrincipal(context.Background(), board.Principal{Author: "human:root", Role: board.RoleAdmin})

			signedIn := func() *person {
				p := newPerson(t, "")
				resp, _, err := p.do(http.MethodPost, ts.URL+"/signin", url.Values{"handle": {"alice"}, "password": {e2ePassword}})
				if err != nil || resp.StatusCode != http.StatusSeeOther {
					t.Fatalf("sign-in: %v %v", err, resp)
				}
				return p
			}
			alive := func(p *person) bool {
				resp, _, err := p.do(http.MethodGet, ts.URL+"/", nil)
				if err != nil {
					t.Fatal(err)
				}
				return resp.StatusCode == http.StatusOK
			}
			attacker := signedIn()
			if !alive(attacker) {
				t.Fatal("a fresh session does not work")
			}
			older, err := accounts.Invite(admin, "alice", "")
			if err != nil {
				t.Fatal(err)
			}
			reset, err := accounts.Invite(admin, "alice", "")
			if err != nil {
				t.Fatal(err)
			}
			const newPassword = "a brand new password"
			owner := newPerson(t, "")
			resp, _, err := owner.do(http.MethodPost, ts.URL+"/invite/"+secretOf(reset), url.Values{"password": {newPassword}, "password_again": {newPassword}})
			if err != nil || resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("accepting the reset link: %v %v", err, resp)
			}
			if alive(attacker) {
				t.Fatal("a session from before the password reset still works")
			}
			if !alive(owner) {
				t.Fatal("the session the reset opened does not work")
			}
			resp, page, err := owner.do(http.MethodGet, ts.URL+"/invite/"+secretOf(older), nil)
			if err != nil || resp.StatusCode != http.StatusNotFound {
				t.Fatalf("an older invitation link after the reset: %v %d\n%s", err, resp.StatusCode, page)
			}
			resp, _, _ = owner.do(http.MethodPost, ts.URL+"/invite/"+secretOf(older), url.Values{"password": {"attacker's password!"}, "password_again": {"attacker's password!"}})
			if resp.StatusCode != http.StatusNotFound {
				t.Fatalf("accepting an older link after the reset: %d, want 404", resp.StatusCode)
			}

			// Disable, then enable: the sessions from before stay ended.
			if err := accounts.SetDisabled(admin, "alice", true); err != nil {
				t.Fatal(err)
			}
			if err := accounts.SetDisabled(admin, "alice", false); err != nil {
				t.Fatal(err)
			}
			if alive(owner) {
				t.Fatal("a session from before a disable came back to life after enable")
			}
			evs, err := accounts.PersonHistory(admin, "alice")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, ev := range evs {
				got = append(got, string(ev.Type)+" by "+ev.Actor)
			}
			want := []string{"person.enabled by human:root", "person.disabled by human:root", "person.password_set by human:alice"}
			if strings.Join(got, "; ") != strings.Join(want, "; ") {
				t.Fatalf("alice's history: %v, want %v", got, want)
			}
		})
	}
}

// secretOf takes the secret from an invitation link (…/invite/<secret>)
// or returns a bare secret as it is.
func secretOf(link string) string { return link[strings.LastIndex(link, "/")+1:] }
