package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Every page names an icon, served from the board itself as SVG; a
// browser asking for /favicon.ico is sent to it instead of a 404.
func TestFavicon(t *testing.T) {
	e := newEnv(t, "sqlite", auth.ModeLoopback)
	b := e.browser()
	for _, path := range []string{"/", "/w/inbox", "/tickets/nosuch-1"} {
		page := b.get(path).body
		m := regexp.MustCompile(`<link rel="icon" href="(/static/[0-9a-f]+/favicon\.svg)" type="image/svg\+xml">`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("%s names no icon", path)
		}
		r := b.get(m[1])
		if r.status != http.StatusOK || r.header.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(r.body, "<svg") {
			t.Fatalf("the icon: %d %q %.40q", r.status, r.header.Get("Content-Type"), r.body)
		}
		if ico := b.get("/favicon.ico"); ico.status != http.StatusMovedPermanently || ico.header.Get("Location") != m[1] {
			t.Fatalf("/favicon.ico: %d Location %q, want 301 to %s", ico.status, ico.header.Get("Location"), m[1])
		}
	}
}

// A search that finds nothing says so once, with the way back, instead of
// a row of empty columns; an unfiltered empty board keeps its columns.
func TestSearchWithoutResultSaysSo(t *testing.T) {
	e := newEnv(t, "sqlite", auth.ModeLoopback)
	b := e.browser()
	b.post("/w/inbox/tickets", url.Values{"request_id": {"seed"}, "title": {"Printer on fire"}})
	none := b.get("/w/inbox?q=" + url.QueryEscape("nothing like this"))
	if none.status != http.StatusOK || !strings.Contains(none.body, `id="no-match"`) || !strings.Contains(none.body, `href="/w/inbox">Show every ticket`) ||
		strings.Contains(none.body, "No tickets</li>") {
		t.Fatalf("a search without result: %d, no-match message %v, empty columns %v", none.status,
			strings.Contains(none.body, `id="no-match"`), strings.Contains(none.body, "No tickets</li>"))
	}
	found := b.get("/w/inbox?q=printer").body
	if strings.Contains(found, `id="no-match"`) || !strings.Contains(found, "Printer on fire") {
		t.Fatal("a search with a result shows the no-match message or misses the ticket")
	}
	empty := b.get("/w/reference").body
	if strings.Contains(empty, `id="no-match"`) || !strings.Contains(empty, "No tickets</li>") {
		t.Fatal("an unfiltered empty board should keep its empty columns, without the search message")
	}
}

// A refusal's page is titled for what it is, not "Something went wrong".
func TestRefusalsAreTitledAsRefusals(t *testing.T) {
	e := newEnv(t, "sqlite", auth.ModeLoopback)
	b := e.browser()
	for _, c := range []struct {
		path, title string
		status      int
	}{
		{"/tickets/inbox-999", "Not found", http.StatusNotFound},
		{"/w/nosuch", "Not found", http.StatusNotFound},
	} {
		r := b.get(c.path)
		if r.status != c.status || !strings.Contains(r.body, "<h1>"+c.title+"</h1>") || strings.Contains(r.body, "Something went wrong") {
			t.Errorf("%s: %d, want %d titled %q:\n%.300s", c.path, r.status, c.status, c.title, r.body)
		}
	}
}

// In loopback mode the person is human:local, who has no tokens: My
// tokens explains why and offers no form that could only fail.
func TestLoopbackTokensPageExplains(t *testing.T) {
	e := newEnv(t, "sqlite", auth.ModeLoopback)
	r := e.browser().get("/tokens")
	if r.status != http.StatusOK || !strings.Contains(r.body, `id="loopback-tokens"`) || strings.Contains(r.body, `action="/tokens"`) {
		t.Fatalf("loopback My tokens: %d, explanation %v, form %v", r.status,
			strings.Contains(r.body, `id="loopback-tokens"`), strings.Contains(r.body, `action="/tokens"`))
	}
}

// Tags typed on the board are normalised where the intent is plain:
// "Frontend, UI ui" is the tags frontend and ui.
func TestBoardNormalisesTypedTags(t *testing.T) {
	e := newEnv(t, "sqlite", auth.ModeLoopback)
	b := e.browser()
	r := b.post("/w/inbox/tickets", url.Values{"request_id": {"tags-1"}, "title": {"Tagged"}, "tags": {"Frontend, UI ui"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("create with tags in capitals: %d\n%.300s", r.status, r.body)
	}
	d, err := e.svc.GetTicket(board.WithPrincipal(t.Context(), auth.Operator), board.TicketIDInput{ID: "inbox-1"})
	if err != nil || !slices.Equal(d.Ticket.Tags, []string{"frontend", "ui"}) {
		t.Fatalf("tags %v (%v), want [frontend ui]", d.Ticket.Tags, err)
	}
}
