package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A write that worked says so on the page its redirect leads to (saved,
// signed out), as a status message; the URL names a known message, never
// its text, and a board's forms do not hand the message on.
func TestSuccessMessages(t *testing.T) {
	e := newEnv(t, "sqlite", auth.ModeRequired)
	e.addPerson("alice", board.RoleAdmin)
	b := e.browser()
	b.signIn("alice", testPassword)
	notice := func(text string) string { return `<div class="notice" role="status">` + text + `</div>` }

	if r := b.post("/w/inbox/tickets", url.Values{"request_id": {"flash-1"}, "title": {"Something to move"}}); r.status != http.StatusSeeOther {
		t.Fatalf("create: %d", r.status)
	}
	id := formRequestID(t, b.get("/w/inbox/settings").body, "/w/inbox/settings")
	r := b.post("/w/inbox/settings", url.Values{"request_id": {id}, "name": {"Inbox"}, "ai_policy": {"read_write"}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/w/inbox?done=saved" {
		t.Fatalf("saving settings: %d to %q", r.status, r.header.Get("Location"))
	}
	saved := b.get("/w/inbox?done=saved").body
	if !strings.Contains(saved, notice("Saved.")) {
		t.Error("the board after saving does not say Saved")
	}
	if !strings.Contains(saved, `name="return_to" value="/w/inbox"`) || strings.Contains(saved, `value="/w/inbox?done=saved"`) {
		t.Error("the board's forms hand the message on to the next page")
	}
	if page := b.get("/w/inbox?done=" + url.QueryEscape("<b>hacked</b>")).body; strings.Contains(page, `class="notice"`) || strings.Contains(page, "hacked") {
		t.Error("an unknown message key shows something")
	}

	r = b.post("/signout", nil)
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/signin?done=signed-out" {
		t.Fatalf("sign-out: %d to %q", r.status, r.header.Get("Location"))
	}
	if page := b.get("/signin?done=signed-out").body; !strings.Contains(page, notice("Signed out.")) {
		t.Error("the sign-in page after signing out does not say Signed out")
	}
}

// What is shown once comes with a copy button that its script shows: hidden
// in the page, so without JavaScript there is no button that does nothing.
func TestCopyButtons(t *testing.T) {
	e := newEnv(t, "sqlite", auth.ModeRequired)
	e.addPerson("alice", board.RoleAdmin)
	b := e.browser()
	b.signIn("alice", testPassword)
	made := b.post("/tokens", url.Values{"token": {formToken.FindStringSubmatch(b.get("/tokens").body)[1]}, "agent": {"claude"}})
	if !strings.Contains(made.body, `id="new-token"`) || !strings.Contains(made.body, `data-copy="new-token" aria-describedby="token-copied" hidden>Copy token</button>`) {
		t.Fatalf("the new token has no hidden copy button: %d", made.status)
	}
	invited := b.post("/people", url.Values{"secret": {formSecret.FindStringSubmatch(b.get("/people").body)[1]}, "handle": {"bob"}})
	if !strings.Contains(invited.body, `id="invitation-link"`) || !strings.Contains(invited.body, `data-copy="invitation-link" aria-describedby="invitation-copied" hidden>Copy link</button>`) {
		t.Fatalf("the invitation link has no hidden copy button: %d", invited.status)
	}
}
