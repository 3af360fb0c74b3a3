package web_test

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

var (
	formToken  = regexp.MustCompile(`name="token" value="(tl_[A-Za-z0-9_-]{43})"`)
	revokeForm = regexp.MustCompile(`action="/tokens/([0-9a-f]{16})/revoke"`)
)

// newToken is the token a page shows once, or "".
func newToken(page string) string {
	m := regexp.MustCompile(`value="(tl_[A-Za-z0-9_-]{43})" aria-label="New API token"`).FindStringSubmatch(page)
	if m == nil {
		return ""
	}
	return m[1]
}

// mcpStatus is the HTTP status of a tools/list on /mcp with a bearer token.
func (e *env) mcpStatus(token string) int {
	e.t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	req, _ := http.NewRequest(http.MethodPost, e.url+"/mcp", bytes.NewBufferString(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// My tokens: a person makes a token (shown once; the form sent twice makes
// one token), sees it listed, uses it, and revokes it; nobody else can.
func TestMyTokens(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("mia", board.RoleMember)
		e.addPerson("ned", board.RoleMember)
		mia, ned := e.browser(), e.browser()
		mia.signIn("mia", testPassword)
		ned.signIn("ned", testPassword)

		page := mia.get("/tokens")
		if page.status != http.StatusOK || !strings.Contains(page.body, "No tokens yet") || !strings.Contains(page.body, `href="/tokens"`) {
			t.Fatalf("My tokens: %d", page.status)
		}
		form := url.Values{"token": {formToken.FindStringSubmatch(page.body)[1]}, "agent": {"claude"}, "label": {`<script>alert(1)</script>`}}
		r := mia.post("/tokens", form)
		tok := newToken(r.body)
		if r.status != http.StatusOK || tok == "" || !strings.Contains(r.body, `claude mcp add --transport http ticket-ledger `+e.url+`/mcp --header "Authorization: Bearer `+tok+`"`) {
			t.Fatalf("make a token: %d, token %q\n%s", r.status, tok, r.body)
		}
		if strings.Contains(r.body, "<script>alert(1)</script>") {
			t.Fatal("the label is rendered as HTML")
		}
		// The same form again (a double click): the same token, one token.
		if again := mia.post("/tokens", form); newToken(again.body) != tok {
			t.Fatal("the form sent twice shows another token")
		}
		if list, _ := e.store.ListTokens(context.Background(), "mia"); len(list) != 1 || list[0].Agent != "claude" {
			t.Fatalf("mia's tokens in the store: %+v", list)
		}
		// Shown once: the page, loaded again, lists it without the token.
		page = mia.get("/tokens")
		if newToken(page.body) != "" || strings.Contains(page.body, tok) || !strings.Contains(page.body, "ai:claude") {
			t.Fatal("the token is shown again, or not listed")
		}
		if e.mcpStatus(tok) != http.StatusOK {
			t.Fatal("the new token is refused on /mcp")
		}
		id := revokeForm.FindStringSubmatch(page.body)[1]
		// Ned neither sees nor revokes it.
		if strings.Contains(ned.get("/tokens").body, id) {
			t.Fatal("ned sees mia's token")
		}
		if r := ned.post("/tokens/"+id+"/revoke", confirm); r.status != http.StatusNotFound {
			t.Fatalf("ned revokes mia's token: %d", r.status)
		}
		if e.mcpStatus(tok) != http.StatusOK {
			t.Fatal("ned's attempt stopped mia's token")
		}
		// Revoke asks first: the unconfirmed post changes nothing.
		if r := mia.post("/tokens/"+id+"/revoke", nil); r.status != http.StatusOK || !strings.Contains(r.body, `id="confirm-action"`) {
			t.Fatalf("revoke without confirmation: %d, want the confirmation page", r.status)
		}
		if e.mcpStatus(tok) != http.StatusOK {
			t.Fatal("an unconfirmed revoke stopped the token")
		}
		if r := mia.post("/tokens/"+id+"/revoke", confirm); r.status != http.StatusSeeOther || r.header.Get("Location") != "/tokens?done=revoked" {
			t.Fatalf("revoke: %d to %q", r.status, r.header.Get("Location"))
		}
		if e.mcpStatus(tok) != http.StatusUnauthorized {
			t.Fatal("the revoked token still works")
		}
		if page := mia.get("/tokens"); !strings.Contains(page.body, "revoked") || revokeForm.MatchString(page.body) {
			t.Fatal("the revoked token is not shown as revoked")
		}
		// A bad agent name is refused beside its field (422, the form to
		// correct) and makes nothing.
		page = mia.get("/tokens")
		bad := mia.post("/tokens", url.Values{"token": {formToken.FindStringSubmatch(page.body)[1]}, "agent": {"two words"}})
		if bad.status != http.StatusUnprocessableEntity || !strings.Contains(bad.body, "agent name") {
			t.Fatalf("a bad agent name: %d", bad.status)
		}
		if list, _ := e.store.ListTokens(context.Background(), "mia"); len(list) != 1 {
			t.Fatalf("%d tokens after the refused form, want 1", len(list))
		}
	})
}
