package rest_test

import (
	"net/http"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The inbox over REST on every store: a mention reaches the person and the
// agent of the writer's person (alice's claude, not bob's), marking by
// Idempotency-Key replays, unread_only and the cursor as query parameters,
// and bad input is refused with nothing marked.
func TestInbox(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend)
		tk := e.createTicket(e.tokens["alice"], "inbox", "t1", map[string]any{"title": "Hand over", "owner": "human:bob"})
		e.ok(call{method: "POST", path: "/api/v1/tickets/" + tk.ID + "/notes", token: e.tokens["alice"], key: "n1",
			body: map[string]any{"body": "@bob and @ai:claude: please look"}}, http.StatusCreated)

		inbox := func(token, query string) board.InboxList {
			t.Helper()
			return decodeAs[board.InboxList](t, e.ok(call{method: "GET", path: "/api/v1/inbox" + query, token: token}, http.StatusOK))
		}
		bob := inbox(e.tokens["bob"], "")
		if len(bob.Items) != 2 || bob.Items[0].Reason != board.InboxMention || bob.Items[1].Reason != board.InboxAssigned || bob.Unread != 2 || bob.UnreadLabel != "2" {
			t.Fatalf("bob's inbox: %+v, want the mention, then the assignment", bob)
		}
		if claude := inbox(e.tokens["claude"], ""); len(claude.Items) != 1 || claude.Items[0].Reason != board.InboxMention {
			t.Errorf("alice's claude: %+v, want the mention", claude.Items)
		}
		if other := inbox(e.tokens["botbob"], ""); len(other.Items) != 0 {
			t.Errorf("bob's claude: %+v, want nothing", other.Items)
		}
		page := inbox(e.tokens["bob"], "?limit=1")
		if len(page.Items) != 1 || page.NextCursor == nil {
			t.Fatalf("first page of one: %+v", page)
		}
		next := inbox(e.tokens["bob"], "?limit=1&cursor="+*page.NextCursor)
		if len(next.Items) != 1 || next.Items[0].ID != bob.Items[1].ID || next.NextCursor != nil {
			t.Errorf("second page: %+v, want the assignment, last", next)
		}

		mark := call{method: "POST", path: "/api/v1/inbox/read", token: e.tokens["bob"], key: "read-1", body: map[string]any{"ids": []string{bob.Items[0].ID}}}
		first := decodeAs[board.MarkInboxReadResult](t, e.ok(mark, http.StatusOK))
		if first.Marked != 1 || first.Unread != 1 {
			t.Errorf("mark one: %+v", first)
		}
		replay := e.ok(mark, http.StatusOK)
		if replay.header.Get("Idempotent-Replayed") != "true" || decodeAs[board.MarkInboxReadResult](t, replay).Marked != 1 {
			t.Errorf("replay of the mark: %s", replay.body)
		}
		if unread := inbox(e.tokens["bob"], "?unread_only=true"); len(unread.Items) != 1 || unread.Items[0].ID != bob.Items[1].ID {
			t.Errorf("unread only: %+v", unread.Items)
		}
		e.refused(call{method: "POST", path: "/api/v1/inbox/read", token: e.tokens["bob"], key: "read-bad", body: map[string]any{"all": true, "ids": []string{bob.Items[1].ID}}},
			http.StatusBadRequest, "invalid")
		all := decodeAs[board.MarkInboxReadResult](t, e.ok(call{method: "POST", path: "/api/v1/inbox/read", token: e.tokens["bob"], key: "read-all", body: map[string]any{"all": true}}, http.StatusOK))
		if all.Marked != 1 || all.Unread != 0 || all.UnreadLabel != "0" {
			t.Errorf("mark all: %+v", all)
		}
	})
}
