package web_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

var (
	activityEntry = regexp.MustCompile(`<li><time `)
	olderActivity = regexp.MustCompile(`href="(/w/inbox/activity\?[^"]+)" rel="next"`)
)

// The Activity page lists a workspace's events newest first, 50 a page
// with a link to the older ones, filtered by author and kind, and the
// board and ticket pages link to it.
func TestActivityPage(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("alice", board.RoleMember)
		b := e.browser()
		b.signIn("alice", testPassword)
		alice := board.WithPrincipal(context.Background(), board.Principal{Author: "human:alice", Source: board.SourceWeb})
		agent := board.WithPrincipal(context.Background(), board.Principal{Author: "ai:claude", OnBehalfOf: "human:alice", Source: board.SourceMCP})
		for i := range 52 {
			ctx := alice
			if i%4 == 0 {
				ctx = agent
			}
			if _, err := e.svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: fmt.Sprintf("c%d", i), Workspace: "inbox", NewTicket: board.NewTicket{Title: fmt.Sprintf("ticket %d", i)}}); err != nil {
				t.Fatal(err)
			}
			e.clock.Add(time.Second)
		}
		if _, err := e.svc.MoveTicket(alice, board.MoveTicketInput{RequestID: "m", ID: "inbox-52", Status: board.StatusDoing}); err != nil {
			t.Fatal(err)
		}

		first := b.get("/w/inbox/activity")
		if first.status != http.StatusOK || !strings.Contains(first.body, `id="activity-list"`) {
			t.Fatalf("the Activity page: %d, without the list", first.status)
		}
		if n := len(activityEntry.FindAllString(first.body, -1)); n != 50 {
			t.Fatalf("the first page shows %d events, want 50", n)
		}
		if i, j := strings.Index(first.body, "moved it from"), strings.Index(first.body, `href="/tickets/inbox-51"`); i < 0 || j < 0 || i > j {
			t.Errorf("the newest event (the move) should come first, before inbox-51's creation")
		}
		if !strings.Contains(first.body, `href="/tickets/inbox-52">inbox-52</a> <span class="ticket-title">ticket 51</span>`) {
			t.Errorf("an activity line names its ticket by id only; want its title beside the id")
		}
		m := olderActivity.FindStringSubmatch(first.body)
		if m == nil {
			t.Fatal("no link to the older events")
		}
		// The newest page refreshes itself on the workspace's changes; an
		// older one, which new events never reach, does not poll.
		if !strings.Contains(first.body, `data-live-marker="/w/inbox/changes"`) {
			t.Error("the newest Activity page does not follow the workspace's changes (data-live-marker)")
		}
		older := b.get(html.UnescapeString(m[1]))
		if strings.Contains(older.body, `data-live-marker="/w/inbox/changes"`) {
			t.Error("an older Activity page polls for changes it can never show")
		}
		if n := len(activityEntry.FindAllString(older.body, -1)); n != 3 || !strings.Contains(older.body, `href="/tickets/inbox-1"`) ||
			!strings.Contains(older.body, "Back to the newest") || olderActivity.MatchString(older.body) {
			t.Errorf("the older page shows %d events; want the last 3 down to inbox-1, a way back and no further page", n)
		}

		byAgent := b.get("/w/inbox/activity?by=ai:claude")
		if n := len(activityEntry.FindAllString(byAgent.body, -1)); n != 13 || strings.Contains(byAgent.body, "human:alice created") {
			t.Errorf("by=ai:claude shows %d events, want the agent's 13 creations only", n)
		}
		moves := b.get("/w/inbox/activity?kind=ticket.moved")
		if n := len(activityEntry.FindAllString(moves.body, -1)); n != 1 || !strings.Contains(moves.body, "moved it from") {
			t.Errorf("kind=ticket.moved shows %d events, want the one move", n)
		}
		none := b.get("/w/inbox/activity?by=ai:nobody")
		if !strings.Contains(none.body, "No event matches these filters") {
			t.Error("a filter that matches nothing should say so")
		}
		if bad := b.get("/w/inbox/activity?kind=ticket.deleted"); bad.status != http.StatusBadRequest || !strings.Contains(bad.body, "not an event kind") {
			t.Errorf("an unknown kind: %d, want 400 naming the problem", bad.status)
		}
		if missing := b.get("/w/nowhere/activity"); missing.status != http.StatusNotFound {
			t.Errorf("an unknown workspace: %d, want 404", missing.status)
		}
		if !strings.Contains(b.get("/w/inbox").body, `href="/w/inbox/activity"`) {
			t.Error("the board does not link to its Activity page")
		}
		if !strings.Contains(b.get("/tickets/inbox-1").body, `href="/w/inbox/activity"`) {
			t.Error("the ticket page does not link to its workspace's Activity page")
		}
	})
}
