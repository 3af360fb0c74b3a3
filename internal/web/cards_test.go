package web_test

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A card says who made the ticket (an AI badge with the agent's name), its
// owner, priority, how its due date stands against today, and links each
// tag to the board filtered by it.
func TestCardContent(t *testing.T) { eachStore(t, checkCardContent) }

func checkCardContent(t *testing.T, backend string) {
	e := newEnv(t, backend, auth.ModeLoopback)
	b := e.browser()
	day := func(offset int) string { return time.Now().UTC().AddDate(0, 0, offset).Format(time.DateOnly) }
	agent := board.WithPrincipal(t.Context(), board.Principal{Author: "ai:claude", OnBehalfOf: "human:alice"})
	if _, err := e.svc.CreateTicket(agent, board.CreateTicketInput{
		RequestID: "card-1",
		Workspace: "inbox",
		NewTicket: board.NewTicket{
			Title:    "Late from the agent",
			Owner:    "human:alice",
			Priority: "urgent",
			Due:      day(-3),
			Tags:     []string{"docs", "ux.v2"},
		},
	}); err != nil {
		t.Fatal(err)
	}
	if r := b.post("/w/inbox/tickets", url.Values{"request_id": {"card-2"}, "title": {"Later by a person"}, "due": {day(5)}}); r.status != 303 {
		t.Fatalf("create: %d", r.status)
	}
	page := b.get("/w/inbox").body
	card := func(id string) string {
		t.Helper()
		m := regexp.MustCompile(`(?s)<li class="card[^"]*" id="card-` + id + `".*?</details>`).FindString(page)
		if m == "" {
			t.Fatalf("no card %s on the board", id)
		}
		return m
	}
	agentCard, personCard := card("inbox-1"), card("inbox-2")
	for _, want := range []string{
		`<abbr class="ai-badge" title="created by an AI agent">AI</abbr> claude for alice</span>`,
		`→ human:alice`,
		`urgent<span class="sr"> priority</span>`,
		`class="due overdue" datetime="` + day(-3) + `" title="due ` + day(-3) + `">overdue by 3 days</time>`,
		`<a class="tag" href="/w/inbox?tag=docs"`,
		`<a class="tag" href="/w/inbox?tag=ux.v2"`,
	} {
		if !strings.Contains(agentCard, want) {
			t.Errorf("the agent's card lacks %s:\n%s", want, agentCard)
		}
	}
	for _, want := range []string{`<span class="by">by local</span>`, `class="due" datetime="` + day(5) + `"`, `>due in 5 days</time>`} {
		if !strings.Contains(personCard, want) {
			t.Errorf("the person's card lacks %s:\n%s", want, personCard)
		}
	}
	if strings.Contains(personCard, "ai-badge") || strings.Contains(personCard, "overdue") {
		t.Errorf("the person's card is badged as AI or overdue:\n%s", personCard)
	}
	// The ticket's page says whom the agent made it for, as its card does.
	if tp := b.get("/tickets/inbox-1").body; !regexp.MustCompile(`<dt>Created</dt><dd><time [^>]*>[^<]*</time> by ai:claude for human:alice</dd>`).MatchString(tp) {
		t.Error("the ticket page's Created line does not say the agent made it for human:alice")
	}
	// The tag link filters the board to that tag.
	if f := b.get("/w/inbox?tag=docs").body; !strings.Contains(f, `id="card-inbox-1"`) || strings.Contains(f, `id="card-inbox-2"`) {
		t.Error("the tag link's board does not show exactly the tagged ticket")
	}
}
