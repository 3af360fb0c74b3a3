package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// responseSizes is an HTTP transport that remembers the size of the last
// response body: the answer as it went over the wire.
type responseSizes struct {
	mu   sync.Mutex
	last int
}

func (r *responseSizes) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.last = len(body)
	r.mu.Unlock()
	resp.Body = io.NopCloser(strings.NewReader(string(body)))
	return resp, nil
}

func (r *responseSizes) Last() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// largest is text at a field's limit that costs the most in an answer:
// control characters (\u0001 in JSON, \\u0001 in the text copy) where
// they are allowed, '<' (\u003c) in titles.
func largest(n int, oneLine bool) string {
	if oneLine {
		return strings.Repeat("<", n)
	}
	return strings.Repeat("\x01", n)
}

// largestTicket is create_ticket's arguments with every field at its limit.
func largestTicket(requestID string) map[string]any {
	links := make([]map[string]string, board.MaxLinks)
	for i := range links {
		links[i] = map[string]string{"kind": "article", "ref": largest(board.MaxLinkRef, false), "title": largest(board.MaxLinkTitle, true)}
	}
	tags := make([]string, board.MaxTags)
	for i := range tags {
		tags[i] = fmt.Sprintf("tag-%02d-%s", i, strings.Repeat("x", 25))
	}
	return map[string]any{"request_id": requestID, "workspace": "inbox", "title": largest(board.MaxTitle, true),
		"body": largest(board.MaxBody, false), "owner": "ai:" + strings.Repeat("n", 64), "due": "2026-12-01",
		"tags": tags, "links": links}
}

// TestLargestAnswersFit: with every ticket and note at the largest the
// board allows, every answer is at most 1 MiB on the wire, structured
// content and text together; lists give up entries to fit and say where to
// continue, and paging reaches everything stored.
func TestLargestAnswersFit(t *testing.T) {
	onEachStore(t, envOptions{}, func(t *testing.T, e *env) {
		sizes := &responseSizes{}
		cs := connect(t, e.URL, legacyVersion, &http.Client{Transport: sizes})
		check := func(what string) {
			t.Helper()
			if n := sizes.Last(); n > board.MaxAnswerBytes {
				t.Errorf("%s: answer of %d bytes, over %d", what, n, board.MaxAnswerBytes)
			} else {
				t.Logf("%s: %d bytes", what, n)
			}
		}

		created := call[board.TicketResult](t, cs, "create_ticket", largestTicket("big-1"))
		check("create_ticket of the largest ticket")
		if created.Ticket.Body != largest(board.MaxBody, false) {
			t.Fatal("the largest ticket came back changed")
		}
		// Its text copy is the same JSON as its structured content.
		res := callRaw(t, cs, "find_request", map[string]any{"request_id": "big-1"})
		check("find_request of it")
		structured, _ := json.Marshal(res.StructuredContent)
		var fromText, fromStructured any
		if err := json.Unmarshal([]byte(errorText(res)), &fromText); err != nil {
			t.Fatalf("text content is not the result's JSON: %v", err)
		}
		json.Unmarshal(structured, &fromStructured)
		if !jsonEqual(fromText, fromStructured) {
			t.Error("text content and structured content differ")
		}

		const notes = 12
		ctx := board.WithPrincipal(context.Background(), agent)
		for i := range notes {
			if _, err := e.Svc.AddNote(ctx, board.AddNoteInput{RequestID: fmt.Sprintf("note-%d", i), ID: "inbox-1",
				Body: fmt.Sprintf("%03d", i) + largest(board.MaxNoteBody-3, false)}); err != nil {
				t.Fatal(err)
			}
		}
		d := call[board.TicketDetail](t, cs, "get_ticket", map[string]any{"id": "inbox-1"})
		check("get_ticket with 12 of the largest notes")
		if d.NotesCursor == nil || len(d.Notes) >= notes {
			t.Fatalf("get_ticket carries %d of %d notes of 10 000 characters and no notes_cursor: it cannot fit", len(d.Notes), notes)
		}
		var seen []string
		for _, n := range d.Notes {
			seen = append(seen, n.Body[:3])
		}
		cursor := *d.NotesCursor
		for pages := 0; cursor != ""; pages++ {
			if pages > notes {
				t.Fatal("list_ticket_notes never reaches the first note")
			}
			page := call[board.NoteList](t, cs, "list_ticket_notes", map[string]any{"id": "inbox-1", "cursor": cursor, "limit": 100})
			check("list_ticket_notes of the largest notes")
			if len(page.Notes) == 0 {
				t.Fatal("an empty page with a cursor")
			}
			var bodies []string
			for _, n := range page.Notes {
				bodies = append(bodies, n.Body[:3])
			}
			seen = append(bodies, seen...)
			cursor = ""
			if page.NextCursor != nil {
				cursor = *page.NextCursor
			}
		}
		want := make([]string, notes)
		for i := range want {
			want[i] = fmt.Sprintf("%03d", i)
		}
		if !slices.Equal(seen, want) {
			t.Errorf("notes read through get_ticket and list_ticket_notes: %v, want %v", seen, want)
		}

		// Six of the largest tickets, waiting for AI and due soon.
		for i := 2; i <= 6; i++ {
			in := board.CreateTicketInput{RequestID: fmt.Sprintf("big-%d", i)}
			raw, _ := json.Marshal(largestTicket(in.RequestID))
			json.Unmarshal(raw, &in)
			if _, err := e.Svc.CreateTicket(ctx, in); err != nil {
				t.Fatal(err)
			}
		}
		for i := 1; i <= 6; i++ {
			if _, err := e.Svc.MoveTicket(ctx, board.MoveTicketInput{RequestID: fmt.Sprintf("wait-%d", i), ID: fmt.Sprintf("inbox-%d", i), Status: board.StatusWaitingAI}); err != nil {
				t.Fatal(err)
			}
		}
		var listed []string
		args := map[string]any{"workspace": "inbox", "limit": 100}
		for pages := 0; ; pages++ {
			if pages > 6 {
				t.Fatal("list_tickets never ends")
			}
			page := call[board.TicketList](t, cs, "list_tickets", args)
			check("list_tickets limit=100 of the largest tickets")
			if page.NextCursor != nil && !page.Partial {
				t.Errorf("a page of %d cut to size is not marked partial", len(page.Tickets))
			}
			for _, tk := range page.Tickets {
				listed = append(listed, tk.ID)
			}
			if page.NextCursor == nil {
				break
			}
			args["cursor"] = *page.NextCursor
		}
		if want := []string{"inbox-6", "inbox-5", "inbox-4", "inbox-3", "inbox-2", "inbox-1"}; !slices.Equal(listed, want) {
			t.Errorf("list_tickets paged through %v, want %v", listed, want)
		}
		sum := call[board.WorkspaceSummary](t, cs, "get_workspace_summary", map[string]any{"workspace": "inbox"})
		check("get_workspace_summary of the largest tickets")
		if len(sum.WaitingAI) == 0 || sum.Counts[board.StatusWaitingAI] != 6 {
			t.Errorf("summary: %d waiting_ai shown, counts %v", len(sum.WaitingAI), sum.Counts)
		}
		call[board.HistoryList](t, cs, "list_ticket_history", map[string]any{"id": "inbox-1", "limit": 100})
		check("list_ticket_history")
		call[board.ActivityList](t, cs, "list_activity", map[string]any{"workspace": "inbox", "limit": 100})
		check("list_activity")
	})
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestLargestEventsFit: a ticket moved a hundred times, every reason at
// its limit of the characters that cost the most (the largest history
// the service writes, and the largest an import takes): list_activity and
// list_ticket_history with limit 100 stay within 1 MiB on the wire, say
// where to continue, and paging reaches every event.
func TestLargestEventsFit(t *testing.T) {
	onEachStore(t, envOptions{}, func(t *testing.T, e *env) {
		sizes := &responseSizes{}
		cs := connect(t, e.URL, legacyVersion, &http.Client{Transport: sizes})
		ctx := board.WithPrincipal(context.Background(), agent)
		if _, err := e.Svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: "moved", Workspace: "inbox", NewTicket: board.NewTicket{Title: "moved often"}}); err != nil {
			t.Fatal(err)
		}
		const moves = 100
		for i := range moves {
			status := []board.Status{board.StatusDoing, board.StatusHold}[i%2]
			if _, err := e.Svc.MoveTicket(ctx, board.MoveTicketInput{RequestID: fmt.Sprintf("move-%d", i), ID: "inbox-1", Status: status,
				Reason: largest(board.MaxReason, false)}); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []struct {
			tool string
			args map[string]any
			list func(json.RawMessage) ([]board.Event, *string)
		}{
			{"list_activity", map[string]any{"workspace": "inbox", "limit": 100}, func(raw json.RawMessage) ([]board.Event, *string) {
				var l board.ActivityList
				json.Unmarshal(raw, &l)
				return l.Events, l.NextCursor
			}},
			{"list_ticket_history", map[string]any{"id": "inbox-1", "limit": 100}, func(raw json.RawMessage) ([]board.Event, *string) {
				var l board.HistoryList
				json.Unmarshal(raw, &l)
				return l.History, l.NextCursor
			}},
		} {
			seen := 0
			for pages := 0; ; pages++ {
				if pages > moves {
					t.Fatalf("%s never reaches the oldest event", c.tool)
				}
				events, next := c.list(call[json.RawMessage](t, cs, c.tool, c.args))
				if n := sizes.Last(); n > board.MaxAnswerBytes {
					t.Fatalf("%s: an answer of %d bytes, over %d", c.tool, n, board.MaxAnswerBytes)
				}
				if pages == 0 && next == nil {
					t.Errorf("%s: the first page holds all %d events and no cursor: it cannot fit", c.tool, len(events))
				}
				for _, ev := range events {
					if ev.Type == board.EventTicketMoved {
						seen++
					}
				}
				if next == nil {
					break
				}
				c.args["cursor"] = *next
			}
			if seen != moves {
				t.Errorf("%s paged through %d moves, want %d", c.tool, seen, moves)
			}
		}
	})
}
