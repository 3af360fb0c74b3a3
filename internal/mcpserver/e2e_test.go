package mcpserver_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Both protocol revisions, end to end over HTTP with the go-sdk client.
func TestEndToEndBothRevisions(t *testing.T) {
	onEachStoreAndRevision(t, func(t *testing.T, e *env, version string) {
		cs := connect(t, e.URL, version, nil)
		if got := cs.InitializeResult().Instructions; !strings.Contains(got, "find_request") || !strings.Contains(got, "list_workspaces") {
			t.Fatalf("instructions = %q, want the look-first and retry advice", got)
		}

		ws := call[board.WorkspacesResult](t, cs, "list_workspaces", map[string]any{})
		if len(ws.Workspaces) != 2 || ws.Workspaces[0].Slug != "inbox" || ws.Workspaces[1].Slug != "reference" {
			t.Fatalf("workspaces = %+v, want inbox and reference (private is hidden)", ws.Workspaces)
		}

		args := map[string]any{"request_id": "e2e-1", "workspace": "inbox", "title": "Write the docs",
			"body": "Explain **retries**.", "priority": "high", "tags": []string{"docs"}, "due": "2026-12-24",
			"links": []map[string]string{{"kind": "url", "ref": "https://example.com/spec", "title": "spec"}}}
		created := call[board.TicketResult](t, cs, "create_ticket", args)
		tk := created.Ticket
		if created.Replayed || tk.ID != "inbox-1" || tk.Status != board.StatusCandidate || tk.CreatedBy != "ai:tester" ||
			tk.Priority != board.PriorityHigh || *tk.Due != "2026-12-24" || tk.URL != "http://board.test/tickets/inbox-1" {
			t.Fatalf("created = %+v", created)
		}

		again := call[board.TicketResult](t, cs, "create_ticket", args)
		if !again.Replayed || again.Ticket.ID != tk.ID || !again.Ticket.CreatedAt.Equal(tk.CreatedAt) {
			t.Fatalf("retry = %+v, want replay of %s", again, tk.ID)
		}

		moved := call[board.MoveResult](t, cs, "move_ticket", map[string]any{"request_id": "e2e-2", "id": tk.ID, "status": "doing", "reason": "starting"})
		if moved.From != board.StatusCandidate || moved.To != board.StatusDoing || moved.Ticket.Version != 2 {
			t.Fatalf("moved = %+v", moved)
		}
		note := call[board.NoteResult](t, cs, "add_note", map[string]any{"request_id": "e2e-3", "id": tk.ID, "body": "half done"})
		if note.Note.Author != "ai:tester" || note.Note.Source != board.SourceMCP {
			t.Fatalf("note = %+v", note)
		}
		upd := call[board.TicketResult](t, cs, "update_ticket", map[string]any{"request_id": "e2e-4", "id": tk.ID, "owner": "ai:tester", "due": nil})
		if upd.Ticket.Owner == nil || *upd.Ticket.Owner != "ai:tester" || upd.Ticket.Due != nil {
			t.Fatalf("update = %+v, want owner set and due cleared", upd.Ticket)
		}

		got := call[board.TicketDetail](t, cs, "get_ticket", map[string]any{"id": tk.ID})
		if len(got.Notes) != 1 || len(got.History) != 4 || got.History[1].Type != board.EventTicketMoved || got.History[1].Reason != "starting" {
			t.Fatalf("detail = %+v", got)
		}
		if got.History[3].Type != board.EventTicketUpdated || len(got.History[3].Fields) != 2 {
			t.Fatalf("update event = %+v, want fields owner and due", got.History[3])
		}

		list := call[board.TicketList](t, cs, "list_tickets", map[string]any{"workspace": "inbox", "query": "DOCS"})
		if len(list.Tickets) != 1 || list.NextCursor != nil {
			t.Fatalf("list = %+v", list)
		}
		found := call[board.RequestLookup](t, cs, "find_request", map[string]any{"request_id": "e2e-1"})
		if found.Status != "done" || found.Tool != "create_ticket" {
			t.Fatalf("find_request = %+v", found)
		}
		unknown := call[board.RequestLookup](t, cs, "find_request", map[string]any{"request_id": "never-sent"})
		if unknown.Status != "unknown" {
			t.Fatalf("find_request unknown = %+v", unknown)
		}
		sum := call[board.WorkspaceSummary](t, cs, "get_workspace_summary", map[string]any{"workspace": "inbox"})
		if sum.Counts[board.StatusDoing] != 1 || len(sum.DueSoon) != 0 || len(sum.RecentEvents) != 4 {
			t.Fatalf("summary = %+v", sum)
		}
	})
}

// loseResponses forwards requests but, while armed, throws the response
// away after the server has answered: the client sees a dropped connection
// for work that was done.
type loseResponses struct {
	armed atomic.Bool
	lost  atomic.Int32
}

func (l *loseResponses) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || !l.armed.Load() {
		return resp, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	l.lost.Add(1)
	return nil, errors.New("connection reset after the server answered")
}

func TestLostResponseRetryReplays(t *testing.T) {
	onEachStoreAndRevision(t, func(t *testing.T, e *env, version string) {
		lossy := &loseResponses{}
		cs := connect(t, e.URL, version, &http.Client{Transport: lossy})
		args := map[string]any{"request_id": "lost-1", "workspace": "inbox", "title": "Answer lost"}

		lossy.armed.Store(true)
		if _, err := cs.CallTool(t.Context(), toolParams("create_ticket", args)); err == nil {
			t.Fatal("call succeeded although its response was dropped")
		}
		lossy.armed.Store(false)
		if lossy.lost.Load() != 1 {
			t.Fatalf("dropped %d responses, want 1", lossy.lost.Load())
		}
		if n := countTickets(t, e.Store, "inbox"); n != 1 {
			t.Fatalf("the server did the work %d times before the retry, want 1", n)
		}

		cs2 := connect(t, e.URL, version, nil) // a new connection, as Claude Code retries
		found := call[board.RequestLookup](t, cs2, "find_request", map[string]any{"request_id": "lost-1"})
		if found.Status != "done" {
			t.Fatalf("find_request = %+v, want done", found)
		}
		retry := call[board.TicketResult](t, cs2, "create_ticket", args)
		if !retry.Replayed || retry.Ticket.ID != "inbox-1" {
			t.Fatalf("retry = %+v, want replay of inbox-1", retry)
		}
		if n := countTickets(t, e.Store, "inbox"); n != 1 {
			t.Fatalf("%d tickets after the retry, want 1", n)
		}
	})
}
