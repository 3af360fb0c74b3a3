package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The settings, Add a person and Make a token forms keep what was typed
// when refused, like the ticket forms: 422, the problem beside its field,
// the form open, every field as typed, and nothing written. (Each of these
// URLs is also its page's, so a reload is no 404.)
func TestRefusedAdminFormsKeepInput(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("alice", board.RoleAdmin)
		b := e.browser()
		b.signIn("alice", testPassword)
		long := strings.Repeat("x", 150)

		// Settings: a name over the limit; the policy chosen stays chosen.
		page := b.get("/w/inbox/settings")
		r := b.post("/w/inbox/settings", url.Values{"request_id": {formRequestID(t, page.body, "/w/inbox/settings")},
			"name": {long}, "ai_policy": {"hidden"}})
		if r.status != http.StatusUnprocessableEntity {
			t.Fatalf("settings with a 150-character name: %d, want 422", r.status)
		}
		marked(t, r, "/w/inbox/settings", "settings", "name", "the limit is")
		if el := control(t, r.body, "/w/inbox/settings", "name"); valueOf(el) != long {
			t.Errorf("the settings name lost what was typed: %s", el)
		}
		if !strings.Contains(r.body, `value="hidden" checked`) {
			t.Error("the policy typed (hidden) is not the one checked")
		}
		if ws := b.get("/w/inbox"); !strings.Contains(ws.body, "AI reads and writes") {
			t.Error("the refused settings changed the workspace")
		}

		// Add a person: a handle that cannot be one; name and role stay.
		page = b.get("/people")
		r = b.post("/people", url.Values{"secret": {hiddenValue(t, page.body, "/people", "secret")}, "handle": {"Bob Smith"},
			"name": {"Bob <Smith>"}, "admin": {"on"}})
		if r.status != http.StatusUnprocessableEntity {
			t.Fatalf("a person with handle %q: %d, want 422", "Bob Smith", r.status)
		}
		marked(t, r, "/people", "person", "handle", "handle")
		if el := control(t, r.body, "/people", "handle"); valueOf(el) != "Bob Smith" {
			t.Errorf("the handle lost what was typed: %s", el)
		}
		if el := control(t, r.body, "/people", "name"); valueOf(el) != "Bob <Smith>" {
			t.Errorf("the name lost what was typed: %s", el)
		}
		if el := control(t, r.body, "/people", "admin"); !strings.Contains(el, "checked") {
			t.Errorf("the Admin box lost its tick: %s", el)
		}
		if !strings.Contains(r.body, "<details class=\"panel\" open>\n  <summary>Add a person</summary>") {
			t.Error("the Add a person form is collapsed")
		}
		if people := b.get("/people"); strings.Contains(people.body, "Bob Smith") {
			t.Error("the refused person was added")
		}

		// Make a token: a label over the limit; the agent name stays.
		page = b.get("/tokens")
		r = b.post("/tokens", url.Values{"token": {hiddenValue(t, page.body, "/tokens", "token")}, "agent": {"claude"}, "label": {long}})
		if r.status != http.StatusUnprocessableEntity {
			t.Fatalf("a token with a 150-character label: %d, want 422", r.status)
		}
		marked(t, r, "/tokens", "token", "label", "the limit is")
		if el := control(t, r.body, "/tokens", "agent"); valueOf(el) != "claude" {
			t.Errorf("the agent name lost what was typed: %s", el)
		}
		if el := control(t, r.body, "/tokens", "label"); valueOf(el) != long {
			t.Errorf("the label lost what was typed: %s", el)
		}
		if toks := b.get("/tokens"); strings.Contains(toks.body, "ai:claude") {
			t.Error("the refused token was made")
		}
	})
}

// hiddenValue is the value of the hidden input name in the form posting to
// action.
func hiddenValue(t *testing.T, page, action, name string) string {
	t.Helper()
	return valueOf(control(t, page, action, name))
}
