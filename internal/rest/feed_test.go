package rest_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The activity feed: a workspace's events and every visible workspace's,
// newest first, paged by cursor and Link, filtered by since, author and
// kind; for an agent a hidden workspace does not exist, also for events
// written before it was hidden.
func TestActivityFeed(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend)
		alice, claude := e.tokens["alice"], e.tokens["claude"]
		e.createTicket(alice, "inbox", "f-1", map[string]any{"title": "one"})
		e.clock.Add(time.Second)
		e.createTicket(claude, "inbox", "f-2", map[string]any{"title": "two"})
		e.clock.Add(time.Second)
		e.createTicket(alice, "private", "f-3", map[string]any{"title": "secret"})
		e.clock.Add(time.Second)
		e.ok(call{method: "POST", path: "/api/v1/tickets/inbox-1/move", token: alice, key: "f-4", body: map[string]any{"status": "doing"}}, 200)

		l := decodeAs[board.ActivityList](t, e.ok(call{method: "GET", path: "/api/v1/workspaces/inbox/events", token: alice}, 200))
		if got := feedKinds(l); got != "ticket.moved ticket.created ticket.created" || l.Workspace != "inbox" || l.NextCursor != nil {
			t.Fatalf("inbox feed: %s, workspace %q, cursor %v; want the move, then the two creates, no cursor", got, l.Workspace, l.NextCursor)
		}
		if l.Latest == nil || !l.Latest.Equal(l.Events[0].At) {
			t.Errorf("latest is %v, want the newest event's time %v", l.Latest, l.Events[0].At)
		}

		// Paged one at a time through the Link header.
		a := e.ok(call{method: "GET", path: "/api/v1/workspaces/inbox/events?limit=1", token: alice}, 200)
		seen := 0
		for link := a.header.Get("Link"); ; link = a.header.Get("Link") {
			seen += len(decodeAs[board.ActivityList](t, a).Events)
			if link == "" {
				break
			}
			next := strings.TrimSuffix(strings.TrimPrefix(link, "<"), `>; rel="next"`)
			a = e.ok(call{method: "GET", path: next, token: alice}, 200)
		}
		if seen != 3 {
			t.Errorf("following Link saw %d events, want 3", seen)
		}

		// Filters.
		byClaude := decodeAs[board.ActivityList](t, e.ok(call{method: "GET", path: "/api/v1/workspaces/inbox/events?by=ai:claude", token: alice}, 200))
		if len(byClaude.Events) != 1 || byClaude.Events[0].Author != "ai:claude" {
			t.Errorf("by=ai:claude: %s", feedKinds(byClaude))
		}
		moves := decodeAs[board.ActivityList](t, e.ok(call{method: "GET", path: "/api/v1/events?kind=ticket.moved", token: alice}, 200))
		if feedKinds(moves) != "ticket.moved" {
			t.Errorf("kind=ticket.moved: %s", feedKinds(moves))
		}
		since := decodeAs[board.ActivityList](t, e.ok(call{method: "GET", path: "/api/v1/workspaces/inbox/events?since=" + url.QueryEscape(l.Events[1].At.Format(time.RFC3339Nano)), token: alice}, 200))
		if feedKinds(since) != "ticket.moved" {
			t.Errorf("since the second newest inbox event: %s, want only the move", feedKinds(since))
		}

		// Every workspace: people see private's event, an agent does not.
		all := decodeAs[board.ActivityList](t, e.ok(call{method: "GET", path: "/api/v1/events", token: alice}, 200))
		if len(all.Events) != 4 || all.Workspace != "" {
			t.Errorf("every workspace for a person: %s", feedKinds(all))
		}
		forAI := decodeAs[board.ActivityList](t, e.ok(call{method: "GET", path: "/api/v1/events", token: claude}, 200))
		for _, ev := range forAI.Events {
			if ev.Workspace == "private" {
				t.Errorf("an agent's feed shows %s of the hidden workspace", ev.Type)
			}
		}
		if len(forAI.Events) != 3 {
			t.Errorf("every workspace for an agent: %s, want inbox's three", feedKinds(forAI))
		}
		e.refused(call{method: "GET", path: "/api/v1/workspaces/private/events", token: claude}, 404, "not_found")
		e.refused(call{method: "GET", path: "/api/v1/workspaces/nope/events", token: alice}, 404, "not_found")

		// Hiding inbox hides its earlier events from agents at once.
		e.ok(call{method: "PATCH", path: "/api/v1/workspaces/inbox", token: alice, key: "f-5", body: map[string]any{"ai_policy": "hidden"}}, 200)
		e.refused(call{method: "GET", path: "/api/v1/workspaces/inbox/events", token: claude}, 404, "not_found")
		after := decodeAs[board.ActivityList](t, e.ok(call{method: "GET", path: "/api/v1/events", token: claude}, 200))
		if len(after.Events) != 0 {
			t.Errorf("an agent's feed after inbox was hidden: %s, want nothing", feedKinds(after))
		}

		// Refusals name what to do.
		for _, c := range []struct{ query, says string }{
			{"kind=ticket.deleted", "not an event kind"},
			{"since=yesterday", "RFC 3339"},
			{"limit=101", "out of range"},
			{"cursor=bogus", "next_cursor"},
		} {
			p := e.refused(call{method: "GET", path: "/api/v1/events?" + c.query, token: alice}, 400, "invalid")
			if !strings.Contains(p.Detail, c.says) {
				t.Errorf("?%s: %q, want it to say %q", c.query, p.Detail, c.says)
			}
		}
		p := e.refused(call{method: "GET", path: "/api/v1/events?kind=ticket.moved&cursor=" + *decodeAs[board.ActivityList](t, e.ok(call{method: "GET", path: "/api/v1/events?limit=1", token: alice}, 200)).NextCursor, token: alice}, 400, "invalid")
		if !strings.Contains(p.Detail, "other filters") {
			t.Errorf("a cursor with other filters: %q", p.Detail)
		}
	})
}

func feedKinds(l board.ActivityList) string {
	var kinds []string
	for _, e := range l.Events {
		kinds = append(kinds, e.Type)
	}
	return strings.Join(kinds, " ")
}
