package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// hasConfirmation says whether a page is a confirmation page: its danger
// button, or its question.
func hasConfirmation(body, question string) bool {
	return strings.Contains(body, `id="confirm-action"`) || strings.Contains(body, question)
}

// A member's POST /people/root/disable answered 200 with "Disable root?"
// and a danger button, and a person's revoke of someone else's token got
// the confirmation page too: the page came before the permission check.
// Every confirmation page is now offered only for what the caller may do;
// anything else is refused first, as the confirmed form would be, and
// nothing changes.
func TestConfirmationComesAfterThePermissionCheck(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("root", board.RoleAdmin)
		e.addPerson("mia", board.RoleMember)
		e.addPerson("ned", board.RoleMember)
		admin, mia, ned := e.browser(), e.browser(), e.browser()
		admin.signIn("root", testPassword)
		mia.signIn("mia", testPassword)
		ned.signIn("ned", testPassword)

		// Disabling a person: a member is refused (403) before any page
		// asks, whoever the target, and whether or not it exists.
		for _, handle := range []string{"root", "ned", "nobody"} {
			for _, form := range []url.Values{nil, confirm} {
				r := mia.post("/people/"+handle+"/disable", form)
				if r.status != http.StatusForbidden || hasConfirmation(r.body, "Disable "+handle+"?") {
					t.Errorf("a member disables %s (confirm %v): %d, confirmation page %v; want 403 without one",
						handle, form != nil, r.status, hasConfirmation(r.body, "Disable "+handle+"?"))
				}
			}
		}
		// An admin is refused what SetDisabled refuses, before the page:
		// an unknown person (404), themselves (400), a bad handle (400).
		for handle, want := range map[string]int{"nobody": http.StatusNotFound, "root": http.StatusBadRequest, "Bad.Handle!": http.StatusBadRequest} {
			r := admin.post("/people/"+url.PathEscape(handle)+"/disable", nil)
			if r.status != want || hasConfirmation(r.body, "Disable "+handle+"?") {
				t.Errorf("an admin asks to disable %q: %d, confirmation page %v; want %d without one",
					handle, r.status, hasConfirmation(r.body, "Disable "+handle+"?"), want)
			}
		}
		// What an admin may do is still confirmed first.
		if r := admin.post("/people/ned/disable", nil); r.status != http.StatusOK || !hasConfirmation(r.body, "Disable ned?") {
			t.Fatalf("an admin disables ned: %d, want the confirmation page", r.status)
		}
		for _, who := range []*browser{admin, mia, ned} {
			if r := who.get("/"); r.status != http.StatusOK {
				t.Fatalf("someone was signed out by a refused or unconfirmed disable: %d", r.status)
			}
		}

		// Revoking a token: someone else's is unknown (404) before any
		// page asks, as is a malformed id; the owner is asked.
		made, err := e.accounts.CreateToken(board.WithPrincipal(context.Background(), board.Principal{Author: "human:mia"}),
			auth.CreateTokenInput{Agent: "claude"})
		if err != nil {
			t.Fatal(err)
		}
		id := made.Token.ID
		question := "Revoke token " + id + "?"
		for _, form := range []url.Values{nil, confirm} {
			if r := ned.post("/tokens/"+id+"/revoke", form); r.status != http.StatusNotFound || hasConfirmation(r.body, question) {
				t.Errorf("ned revokes mia's token (confirm %v): %d, confirmation page %v; want 404 without one", form != nil, r.status, hasConfirmation(r.body, question))
			}
		}
		if r := ned.post("/tokens/0123456789abcdef/revoke", nil); r.status != http.StatusNotFound || hasConfirmation(r.body, "Revoke token") {
			t.Errorf("ned revokes a token nobody has: %d, want 404 without a confirmation page", r.status)
		}
		if r := ned.post("/tokens/not-an-id/revoke", nil); r.status != http.StatusNotFound || hasConfirmation(r.body, "Revoke token") {
			t.Errorf("ned revokes a malformed id: %d, want 404 without a confirmation page", r.status)
		}
		if e.mcpStatus(made.Secret) != http.StatusOK {
			t.Fatal("a refused revoke stopped mia's token")
		}
		if r := mia.post("/tokens/"+id+"/revoke", nil); r.status != http.StatusOK || !hasConfirmation(r.body, question) {
			t.Fatalf("mia revokes her own token: %d, want the confirmation page", r.status)
		}
		if e.mcpStatus(made.Secret) != http.StatusOK {
			t.Fatal("an unconfirmed revoke stopped the token")
		}
	})
}
