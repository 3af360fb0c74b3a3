package mcpserver_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Fifty identical calls sent together, each on its own connection, to one
// server: one ticket, and every successful answer names it. The store
// orders one instance's writes to a workspace, so what this shows is that
// identical retries replay the first, in whatever order they are taken;
// instances racing without a shared lock are storetest.RunShared's and the
// two-instance Lambda test's (functions/mcp).
func TestIdenticalCallsReplayTheFirst(t *testing.T) {
	onEachStore(t, envOptions{}, func(t *testing.T, e *env) {
		args := map[string]any{"request_id": "burst-1", "workspace": "inbox", "title": "Only once"}
		const n = 50
		sessions := make([]*sessionT, n)
		for i := range sessions {
			sessions[i] = &sessionT{cs: connect(t, e.URL, modernVersion, nil)}
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		for _, s := range sessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				res, err := s.cs.CallTool(t.Context(), toolParams("create_ticket", args))
				s.err = err
				if err == nil {
					s.res = res
				}
			}()
		}
		close(start)
		wg.Wait()
		ids := map[string]int{}
		fresh := 0
		for _, s := range sessions {
			if s.err != nil {
				t.Fatalf("protocol error: %v", s.err)
			}
			if s.res.IsError {
				t.Fatalf("tool error: %s", errorText(s.res))
			}
			out := decode[board.TicketResult](t, s.res)
			ids[out.Ticket.ID]++
			if !out.Replayed {
				fresh++
			}
		}
		if len(ids) != 1 || ids["inbox-1"] != n {
			t.Fatalf("answers name tickets %v, want all %d to name inbox-1", ids, n)
		}
		if fresh != 1 {
			t.Fatalf("%d answers claim to have created the ticket, want exactly 1", fresh)
		}
		if got := countTickets(t, e.Store, "inbox"); got != 1 {
			t.Fatalf("store holds %d tickets, want 1", got)
		}
	})
}

// The same request_id with other arguments is refused, names what differs,
// and writes nothing.
func TestReusedRequestIDWithOtherArgumentsIsRefused(t *testing.T) {
	onEachStore(t, envOptions{}, func(t *testing.T, e *env) {
		cs := connect(t, e.URL, legacyVersion, nil)
		call[board.TicketResult](t, cs, "create_ticket", map[string]any{"request_id": "same", "workspace": "inbox", "title": "First", "priority": "low"})

		msg := callErr(t, cs, "create_ticket", map[string]any{"request_id": "same", "workspace": "inbox", "title": "Second", "priority": "low", "tags": []string{"x"}})
		for _, want := range []string{"differing fields: tags, title", "nothing was written", "new request_id"} {
			if !strings.Contains(msg, want) {
				t.Errorf("message %q lacks %q", msg, want)
			}
		}
		msg = callErr(t, cs, "add_note", map[string]any{"request_id": "same", "id": "inbox-1", "body": "x"})
		if !strings.Contains(msg, "already used for create_ticket") {
			t.Errorf("reuse across tools: %q", msg)
		}
		d := call[board.TicketDetail](t, cs, "get_ticket", map[string]any{"id": "inbox-1"})
		if d.Ticket.Title != "First" || len(d.Ticket.Tags) != 0 || len(d.Notes) != 0 || len(d.History) != 1 {
			t.Fatalf("ticket changed by refused calls: %+v", d)
		}
		if got := countTickets(t, e.Store, "inbox"); got != 1 {
			t.Fatalf("%d tickets, want 1", got)
		}
	})
}

// Keys are scoped per principal: another agent's identical request_id is a
// new write, and it cannot see the first agent's record.
func TestRequestIDsAreScopedPerPrincipal(t *testing.T) {
	onEachStore(t, envOptions{}, func(t *testing.T, e *env) {
		cs := connect(t, e.URL, legacyVersion, nil)
		call[board.TicketResult](t, cs, "create_ticket", map[string]any{"request_id": "shared-id", "workspace": "inbox", "title": "Mine"})

		other := board.WithPrincipal(t.Context(), board.Principal{Author: "ai:other", Source: board.SourceMCP})
		found, err := e.Svc.FindRequest(other, board.FindRequestInput{RequestID: "shared-id"})
		if err != nil || found.Status != "unknown" || found.Result != nil {
			t.Fatalf("other principal probing = %+v, %v; want unknown", found, err)
		}
		theirs, err := e.Svc.CreateTicket(other, board.CreateTicketInput{RequestID: "shared-id", Workspace: "inbox", NewTicket: board.NewTicket{Title: "Theirs"}})
		if err != nil || theirs.Replayed || theirs.Ticket.ID != "inbox-2" || theirs.Ticket.CreatedBy != "ai:other" {
			t.Fatalf("other principal create = %+v, %v", theirs, err)
		}
	})
}

type sessionT struct {
	cs  *mcpSession
	res *mcpResult
	err error
}
