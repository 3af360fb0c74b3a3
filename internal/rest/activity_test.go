package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A ticket's answer carries its newest 20 notes and events with cursors,
// and the paging routes reach every older one exactly once, in order.
func TestTicketActivityPages(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend)
		alice := e.tokens["alice"]
		e.createTicket(alice, "inbox", "act-0", map[string]any{"title": "busy"})
		const notes = 45
		for i := range notes {
			e.ok(call{method: "POST", path: "/api/v1/tickets/inbox-1/notes", token: alice, key: fmt.Sprintf("act-%d", i+1),
				body: map[string]any{"body": fmt.Sprintf("note %d", i)}}, http.StatusCreated)
		}
		d := decodeAs[board.TicketDetail](t, e.ok(call{method: "GET", path: "/api/v1/tickets/inbox-1", token: alice}, 200))
		if len(d.Notes) != 20 || d.Notes[0].Body != "note 25" || d.Notes[19].Body != "note 44" || d.NotesCursor == nil {
			t.Fatalf("the ticket's notes: %d, first %q, cursor %v", len(d.Notes), d.Notes[0].Body, d.NotesCursor)
		}
		if len(d.History) != 20 || d.HistoryCursor == nil {
			t.Fatalf("the ticket's history: %d, cursor %v", len(d.History), d.HistoryCursor)
		}
		// Back through the notes: 20, then 5, each oldest first.
		seen := []string{}
		for _, n := range d.Notes {
			seen = append(seen, n.Body)
		}
		cursor := *d.NotesCursor
		for pages := 0; cursor != ""; pages++ {
			l := decodeAs[board.NoteList](t, e.ok(call{method: "GET", path: "/api/v1/tickets/inbox-1/notes?limit=20&cursor=" + cursor, token: alice}, 200))
			var bodies []string
			for _, n := range l.Notes {
				bodies = append(bodies, n.Body)
			}
			seen = append(bodies, seen...)
			cursor = ""
			if l.NextCursor != nil {
				cursor = *l.NextCursor
			}
		}
		if len(seen) != notes {
			t.Fatalf("paging saw %d notes, want %d", len(seen), notes)
		}
		for i, b := range seen {
			if b != fmt.Sprintf("note %d", i) {
				t.Fatalf("note %d is %q: pages overlap or skip", i, b)
			}
		}
		// The history: 46 events (created, 45 notes), all reachable.
		total := len(d.History)
		cursor = *d.HistoryCursor
		for cursor != "" {
			l := decodeAs[board.HistoryList](t, e.ok(call{method: "GET", path: "/api/v1/tickets/inbox-1/history?limit=7&cursor=" + cursor, token: alice}, 200))
			total += len(l.History)
			cursor = ""
			if l.NextCursor != nil {
				cursor = *l.NextCursor
			}
		}
		if total != notes+1 {
			t.Fatalf("the history pages hold %d events, want %d", total, notes+1)
		}
		// Cursors are bound to their list and ticket.
		e.createTicket(alice, "inbox", "act-x", map[string]any{"title": "other"})
		e.refused(call{method: "GET", path: "/api/v1/tickets/inbox-2/notes?cursor=" + *d.NotesCursor, token: alice}, 400, "invalid")
		e.refused(call{method: "GET", path: "/api/v1/tickets/inbox-1/history?cursor=" + *d.NotesCursor, token: alice}, 400, "invalid")
		// Hidden from an agent: as absent.
		e.createTicket(alice, "private", "act-p", map[string]any{"title": "hidden"})
		e.refused(call{method: "GET", path: "/api/v1/tickets/private-1/notes", token: e.tokens["claude"]}, 404, "not_found")
	})
}

// Every answer is at most 1 MiB: a page of the largest tickets gives up
// its last ones and says where to continue, and continuing reaches all.
func TestAnswersBounded(t *testing.T) {
	e := newEnv(t, "sqlite")
	alice := e.tokens["alice"]
	body := strings.Repeat("𝄞", board.MaxBody) // 4 bytes each: 80 000 bytes
	const n = 16
	for i := range n {
		e.createTicket(alice, "inbox", fmt.Sprintf("big-%d", i), map[string]any{"title": fmt.Sprintf("big %d", i), "body": body, "tags": []string{"big"}})
	}
	seen := 0
	path := "/api/v1/workspaces/inbox/tickets?tag=big&limit=100"
	for pages := 0; path != ""; pages++ {
		a := e.ok(call{method: "GET", path: path, token: alice}, 200)
		if len(a.body) > board.MaxAnswerBytes {
			t.Fatalf("page %d is %d bytes, over %d", pages, len(a.body), board.MaxAnswerBytes)
		}
		l := decodeAs[board.TicketList](t, a)
		seen += len(l.Tickets)
		path = ""
		if l.NextCursor != nil {
			if !l.Partial && len(l.Tickets) < 100 {
				t.Fatalf("page %d: %d tickets and a cursor, not partial", pages, len(l.Tickets))
			}
			link := a.header.Get("Link")
			path = link[1:strings.Index(link, ">")]
		}
		if pages > n {
			t.Fatal("paging does not end")
		}
	}
	if seen != n {
		t.Fatalf("paging reached %d tickets, want %d", seen, n)
	}
}

// The events listing of a ticket moved a hundred times, every reason at
// its limit of characters JSON writes in 6 bytes, stays within 1 MiB a
// page, says where to continue, and paging reaches every move.
func TestLargestEventsBounded(t *testing.T) {
	e := newEnv(t, "sqlite")
	alice := e.tokens["alice"]
	e.createTicket(alice, "inbox", "moved", map[string]any{"title": "moved often"})
	reason := strings.Repeat("\x01", board.MaxReason)
	const moves = 100
	for i := range moves {
		status := []string{"doing", "hold"}[i%2]
		e.ok(call{method: "POST", path: "/api/v1/tickets/inbox-1/move", token: alice, key: fmt.Sprintf("mv-%d", i),
			body: map[string]any{"status": status, "reason": reason}}, 200)
	}
	seen := 0
	path := "/api/v1/workspaces/inbox/events?limit=100"
	for pages := 0; path != ""; pages++ {
		if pages > moves {
			t.Fatal("paging does not end")
		}
		a := e.ok(call{method: "GET", path: path, token: alice}, 200)
		if len(a.body) > board.MaxAnswerBytes {
			t.Fatalf("page %d is %d bytes, over %d", pages, len(a.body), board.MaxAnswerBytes)
		}
		l := decodeAs[board.ActivityList](t, a)
		if pages == 0 && l.NextCursor == nil {
			t.Errorf("the first page holds all %d events and no cursor", len(l.Events))
		}
		for _, ev := range l.Events {
			if ev.Type == board.EventTicketMoved {
				seen++
			}
		}
		path = ""
		if l.NextCursor != nil {
			path = "/api/v1/workspaces/inbox/events?limit=100&cursor=" + *l.NextCursor
		}
	}
	if seen != moves {
		t.Fatalf("paging reached %d moves, want %d", seen, moves)
	}
}
