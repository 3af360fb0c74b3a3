package rest_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The feed of every workspace tells an agent nothing about a workspace
// hidden from it, and no cursor it did not get unchanged from the server is
// taken: the attacks of a caller who decodes cursors and times its calls.
func TestActivityFeedHoldsHiddenWorkspaces(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend)
		alice, claude := e.tokens["alice"], e.tokens["claude"]
		first := e.createTicket(claude, "inbox", "h-1", map[string]any{"title": "agent's first"})
		e.clock.Add(time.Second)
		e.createTicket(alice, "private", "h-2", map[string]any{"title": "a person's secret"})
		e.clock.Add(time.Second)
		e.createTicket(claude, "inbox", "h-3", map[string]any{"title": "agent's second"})

		// A one-bit oracle: with a hidden write between the agent's two,
		// the page after the first must look as it would without it.
		since := url.QueryEscape(first.CreatedAt.Format(time.RFC3339Nano))
		l := decodeAs[board.ActivityList](t, e.ok(call{method: "GET", path: "/api/v1/events?limit=1&since=" + since, token: claude}, 200))
		if len(l.Events) != 1 || l.Events[0].TicketID != "inbox-2" || l.NextCursor != nil || l.Partial {
			t.Errorf("since the agent's first write, limit 1: %s, cursor %v, partial %v; want its second write and nothing more",
				feedKinds(l), l.NextCursor, l.Partial)
		}
		// No match at all: no cursor, not partial.
		l = decodeAs[board.ActivityList](t, e.ok(call{method: "GET", path: "/api/v1/events?by=ai:nobody&limit=1", token: claude}, 200))
		if len(l.Events) != 0 || l.NextCursor != nil || l.Partial {
			t.Errorf("by=ai:nobody: %s, cursor %v, partial %v; want an empty last page", feedKinds(l), l.NextCursor, l.Partial)
		}

		// A cursor made up to name the hidden event (as a decoded cursor
		// reads) is refused on the inbox feed and the feed of every
		// workspace, as is a genuine cursor altered.
		hidden := decodeAs[board.ActivityList](t, e.ok(call{method: "GET", path: "/api/v1/workspaces/private/events", token: alice}, 200)).Events[0]
		for _, c := range []struct{ path, filter string }{
			{"/api/v1/workspaces/inbox/events", "feed\x00inbox\x00\x00\x00"},
			{"/api/v1/events", "feed\x00\x00\x00\x00"},
		} {
			sum := sha256.Sum256([]byte(c.filter))
			raw, _ := json.Marshal(map[string]any{"a": hidden.At.Add(time.Nanosecond), "i": hidden.ID, "f": base64.RawURLEncoding.EncodeToString(sum[:8])})
			forged := base64.RawURLEncoding.EncodeToString(raw)
			p := e.refused(call{method: "GET", path: c.path + "?cursor=" + forged, token: claude}, 400, "invalid")
			if !strings.Contains(p.Detail, "omit cursor to start again") {
				t.Errorf("%s with a made-up cursor: %q, want it to say to start again without one", c.path, p.Detail)
			}
		}
		page := decodeAs[board.ActivityList](t, e.ok(call{method: "GET", path: "/api/v1/workspaces/inbox/events?limit=1", token: claude}, 200))
		if page.NextCursor == nil {
			t.Fatal("a page of one of two inbox events has no cursor")
		}
		genuine := *page.NextCursor
		body, tag, ok := strings.Cut(genuine, ".")
		if !ok {
			t.Fatalf("cursor %q has no tag", genuine)
		}
		decoded, _ := base64.RawURLEncoding.DecodeString(body)
		var fields map[string]any
		if err := json.Unmarshal(decoded, &fields); err != nil {
			t.Fatalf("cursor payload %q: %v", decoded, err)
		}
		fields["i"] = hidden.ID
		raw, _ := json.Marshal(fields)
		altered := base64.RawURLEncoding.EncodeToString(raw) + "." + tag
		e.refused(call{method: "GET", path: "/api/v1/workspaces/inbox/events?limit=1&cursor=" + altered, token: claude}, 400, "invalid")
		next := decodeAs[board.ActivityList](t, e.ok(call{method: "GET", path: "/api/v1/workspaces/inbox/events?limit=1&cursor=" + url.QueryEscape(genuine), token: claude}, 200))
		if len(next.Events) != 1 || next.Events[0].TicketID != "inbox-1" {
			t.Errorf("the genuine cursor: %s, want the agent's first write", feedKinds(next))
		}
	})
}
