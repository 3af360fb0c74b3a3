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

// The new-ticket form's type-ahead: GET /w/{slug}/similar?title=… answers
// the open tickets whose titles share most words with what was typed, as a
// fragment of links; nothing for a title like no other; 404 for a
// workspace that does not exist; sign-in required like every page.
func TestSimilarTypeAhead(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("alice", board.RoleMember)
		agent := board.WithPrincipal(context.Background(), board.Principal{Author: "ai:agent", Source: board.SourceMCP})
		for i, title := range []string{"Printer jams on floor two", "Coffee <machine> broken", "Printer toner empty", "ブログ記事の下書き"} {
			if _, err := e.svc.CreateTicket(agent, board.CreateTicketInput{RequestID: "s" + string(rune('1'+i)), Workspace: "inbox", NewTicket: board.NewTicket{Title: title}}); err != nil {
				t.Fatal(err)
			}
		}
		b := e.browser()
		if r := b.get("/w/inbox/similar?title=printer"); r.status != http.StatusSeeOther && r.status != http.StatusUnauthorized {
			t.Fatalf("signed out: %d %s, want the sign-in", r.status, r.body)
		}
		b.signIn("alice", testPassword)
		r := b.get("/w/inbox/similar?title=" + url.QueryEscape("the printer jams"))
		if r.status != http.StatusOK || !strings.Contains(r.body, `href="/tickets/inbox-1"`) || strings.Contains(r.body, "inbox-3") || strings.Contains(r.body, "inbox-2") {
			t.Errorf("similar to %q: %d %s, want inbox-1 only", "the printer jams", r.status, r.body)
		}
		if r.header.Get("Cache-Control") != "no-store" {
			t.Errorf("Cache-Control %q, want no-store", r.header.Get("Cache-Control"))
		}
		r = b.get("/w/inbox/similar?title=" + url.QueryEscape("coffee machine"))
		if !strings.Contains(r.body, "Coffee &lt;machine&gt; broken") {
			t.Errorf("a title is escaped in the fragment: %s", r.body)
		}
		// Japanese titles are similar by the pairs of characters they share.
		r = b.get("/w/inbox/similar?title=" + url.QueryEscape("ブログ記事を確認"))
		if r.status != http.StatusOK || !strings.Contains(r.body, `href="/tickets/inbox-4"`) || strings.Contains(r.body, "inbox-1") {
			t.Errorf("similar to %q: %d %s, want inbox-4 only", "ブログ記事を確認", r.status, r.body)
		}
		if r := b.get("/w/inbox/similar?title=" + url.QueryEscape("quarterly report")); r.status != http.StatusOK || strings.TrimSpace(r.body) != "" {
			t.Errorf("a title like no other: %d %q, want 200 and nothing", r.status, r.body)
		}
		if r := b.get("/w/nowhere/similar?title=printer"); r.status != http.StatusNotFound {
			t.Errorf("an unknown workspace: %d, want 404", r.status)
		}
		page := b.get("/w/inbox")
		if !strings.Contains(page.body, `hx-get="/w/inbox/similar"`) || !strings.Contains(page.body, `id="similar-tickets"`) {
			t.Error("the new-ticket form does not ask for similar tickets as the title is typed")
		}
	})
}
