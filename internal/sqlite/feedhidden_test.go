package sqlite_test

import (
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

var aiPolicies = []board.AIPolicy{board.PolicyReadWrite, board.PolicyReadOnly}

// TestFeedNeverReadsHiddenEvents: the feed of every workspace an AI may
// read does not read a hidden workspace's events at all. The newest event
// of the hidden workspace is a row that cannot be decoded (written behind
// the store's back): a walk that examined it would fail. A position naming
// a hidden event places nothing: the call is refused rather than answered
// relative to it, for the feed of every workspace, for one workspace's
// feed, and for a ticket's history.
func TestFeedNeverReadsHiddenEvents(t *testing.T) {
	path := filepath.Join(t.TempDir(), sqlite.FileName)
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	svc, err := board.NewService(board.Config{Store: s, BaseURL: "http://x"})
	if err != nil {
		t.Fatal(err)
	}
	person := board.WithPrincipal(t.Context(), board.Principal{Author: "human", Source: board.SourceWeb})
	for _, c := range []struct{ key, ws string }{{"a1", "inbox"}, {"h", "private"}, {"a2", "inbox"}} {
		if _, err := svc.CreateTicket(person, board.CreateTicketInput{RequestID: c.key, Workspace: c.ws, NewTicket: board.NewTicket{Title: c.key}}); err != nil {
			t.Fatal(err)
		}
	}
	hidden, err := s.ListActivity(t.Context(), board.FeedQuery{Workspace: "private", Limit: 1})
	if err != nil || len(hidden.Events) != 1 {
		t.Fatalf("the hidden workspace's event: %+v, %v", hidden, err)
	}
	h := hidden.Events[0]

	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`INSERT INTO events (id, workspace, ticket_id, data) VALUES ('trap', 'private', 'private-1', 'not json')`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ListActivity(t.Context(), board.FeedQuery{Limit: 5}); err == nil {
		t.Fatal("a person's feed read the trap without failing: the trap would prove nothing")
	}

	for _, q := range []board.FeedQuery{
		{Readable: aiPolicies, Limit: 1},
		{Readable: aiPolicies, Limit: 1, Author: "ai:nobody", MaxScan: 1},
		{Readable: aiPolicies, Limit: 5, Type: board.EventTicketMoved},
	} {
		page, err := s.ListActivity(t.Context(), q)
		if err != nil {
			t.Errorf("AI feed %+v: %v; it read the hidden workspace", q, err)
			continue
		}
		for _, e := range page.Events {
			if e.Workspace == "private" {
				t.Errorf("AI feed %+v shows %s of the hidden workspace", q, e.ID)
			}
		}
		if page.Next != nil && page.Next.ID == "trap" {
			t.Errorf("AI feed %+v: Next is the hidden event", q)
		}
	}

	at := h.At.AddDate(1, 0, 0) // a time later than everything: only the id would place the position
	for name, q := range map[string]board.FeedQuery{
		"every workspace":    {Readable: aiPolicies, Limit: 5, Before: &board.Position{At: at, ID: h.ID}},
		"inbox":              {Workspace: "inbox", Readable: aiPolicies, Limit: 5, Before: &board.Position{At: at, ID: h.ID}},
		"inbox, by a person": {Workspace: "inbox", Limit: 5, Before: &board.Position{At: at, ID: h.ID}},
	} {
		page, err := s.ListActivity(t.Context(), q)
		var e *board.Error
		if !errors.As(err, &e) || e.Code != board.CodeInvalid {
			t.Errorf("%s before a hidden event: %d events, %v; want the position refused", name, len(page.Events), err)
		}
	}
	history, err := s.ListHistory(t.Context(), board.ActivityQuery{TicketID: "inbox-1", Limit: 5, Before: &board.Position{At: at, ID: h.ID}})
	if err != nil || len(history.Events) != 0 {
		t.Errorf("inbox-1's history before another ticket's event: %d events, %v; want none", len(history.Events), err)
	}
}
