package rest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// 50 identical POSTs with one key, sent together to one server: one
// ticket, one 201 that wrote it and 49 replays of it (201, the same body,
// Idempotent-Replayed: true). Within one instance the store orders writes
// to a workspace (SQLite's committer, DynamoDB's per-workspace lock), so
// this shows that identical retries replay, whatever order they arrive in;
// the races between instances, which share no lock, are
// storetest.RunShared's and the two-instance Lambda test's.
func TestIdenticalPostsReplayTheFirst(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend)
		const n = 50
		answers := make([]answer, n)
		gate := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-gate
				answers[i] = e.do(call{method: "POST", path: "/api/v1/workspaces/inbox/tickets", token: e.tokens["claude"], key: "fifty",
					body: map[string]any{"title": "Once", "tags": []string{"race"}}})
			})
		}
		close(gate)
		wg.Wait()
		var first []answer
		replays := 0
		for i, a := range answers {
			if a.status != http.StatusCreated {
				t.Fatalf("POST %d: %d %s, want 201", i, a.status, a.body)
			}
			if a.header.Get("Idempotent-Replayed") == "true" {
				replays++
			} else {
				first = append(first, a)
			}
		}
		if len(first) != 1 || replays != n-1 {
			t.Fatalf("%d answers wrote and %d replayed, want 1 and %d", len(first), replays, n-1)
		}
		original := decodeAs[board.CreatedTicket](t, first[0])
		for i, a := range answers {
			r := decodeAs[board.CreatedTicket](t, a)
			if r.Ticket.ID != original.Ticket.ID || !r.Ticket.CreatedAt.Equal(original.Ticket.CreatedAt) ||
				a.header.Get("Location") != first[0].header.Get("Location") || a.header.Get("ETag") != first[0].header.Get("ETag") {
				t.Fatalf("answer %d is of %+v, want %+v", i, r.Ticket, original.Ticket)
			}
			// The body is the first answer's, but for replayed.
			if r.Replayed {
				r.Replayed = false
				again, _ := json.Marshal(r)
				if !bytes.Equal(again, first[0].body) {
					t.Fatalf("replay %d body\n%s\nis not the first answer's\n%s", i, again, first[0].body)
				}
			}
		}
		// The witness: the store holds one ticket.
		if got := e.ticketCount("inbox"); got != 1 {
			t.Fatalf("the store holds %d tickets, want 1", got)
		}
		l := decodeAs[board.TicketList](t, e.ok(call{method: "GET", path: "/api/v1/workspaces/inbox/tickets?tag=race", token: e.tokens["claude"]}, 200))
		if len(l.Tickets) != 1 {
			t.Fatalf("listing finds %d tickets, want 1", len(l.Tickets))
		}
	})
}

// One namespace: a request_id used over MCP replays over REST with the
// same credential, and the other way round; GET /requests/{key} answers
// what find_request answers.
func TestOneLedgerForMCPAndREST(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend)
		claude := e.tokens["claude"]
		for _, version := range []string{legacyVersion, modernVersion} {
			cs := mcpSession(t, e.url, claude, version)
			mcpKey, restKey := "mcp-"+version, "rest-"+version
			raw, text := tool(t, cs, "create_ticket", map[string]any{"request_id": mcpKey, "workspace": "inbox", "title": "from MCP " + version, "priority": "normal"})
			if text != "" {
				t.Fatal(text)
			}
			var viaMCP board.TicketResult
			json.Unmarshal(raw, &viaMCP)
			// The same call over REST (priority normal is the default there).
			a := e.ok(call{method: "POST", path: "/api/v1/workspaces/inbox/tickets", token: claude, key: mcpKey,
				body: map[string]any{"title": "from MCP " + version}}, http.StatusCreated)
			viaREST := decodeAs[board.TicketResult](t, a)
			if a.header.Get("Idempotent-Replayed") != "true" || !viaREST.Replayed || viaREST.Ticket.ID != viaMCP.Ticket.ID {
				t.Fatalf("REST with the MCP request_id: %s %s, want a replay of %s", a.header, a.body, viaMCP.Ticket.ID)
			}
			// REST first, then MCP.
			made := e.createTicket(claude, "inbox", restKey, map[string]any{"title": "from REST " + version})
			raw, text = tool(t, cs, "create_ticket", map[string]any{"request_id": restKey, "workspace": "inbox", "title": "from REST " + version})
			var replay board.TicketResult
			json.Unmarshal(raw, &replay)
			if text != "" || !replay.Replayed || replay.Ticket.ID != made.ID {
				t.Fatalf("MCP with the REST key: %s %s, want a replay of %s", raw, text, made.ID)
			}
			// find_request and GET /requests/{key} agree, for both keys.
			for _, key := range []string{mcpKey, restKey, "never-used"} {
				found, text := tool(t, cs, "find_request", map[string]any{"request_id": key})
				if text != "" {
					t.Fatal(text)
				}
				got := e.ok(call{method: "GET", path: "/api/v1/requests/" + key, token: claude}, 200)
				if canonical(t, found) != canonical(t, got.body) {
					t.Fatalf("find_request(%s) = %s, GET /requests = %s", key, found, got.body)
				}
			}
			// Another principal's key is unknown to this one.
			if l := decodeAs[board.RequestLookup](t, e.ok(call{method: "GET", path: "/api/v1/requests/" + mcpKey, token: e.tokens["alice"]}, 200)); l.Status != "unknown" {
				t.Fatalf("alice sees ai:claude's request: %+v", l)
			}
		}
		if n := e.ticketCount("inbox"); n != 4 {
			t.Fatalf("inbox holds %d tickets, want 4 (one per key)", n)
		}
	})
}

func canonical(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// If-Match and replays: a replay is judged first and answers the first
// 200 although the version moved past its If-Match; of two changes from
// one version, one wins and the other is 412.
func TestIfMatchAndReplay(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend)
		alice := e.tokens["alice"]
		e.createTicket(alice, "inbox", "im-0", map[string]any{"title": "v1"})
		patch := func(key, ifMatch, title string) answer {
			return e.do(call{method: "PATCH", path: "/api/v1/tickets/inbox-1", token: alice, key: key,
				header: map[string]string{"If-Match": ifMatch}, body: map[string]any{"title": title}})
		}
		first := patch("im-1", `"1"`, "v2")
		if first.status != 200 || first.header.Get("ETag") != `"2"` {
			t.Fatalf("PATCH at version 1: %d %s", first.status, first.body)
		}
		again := patch("im-1", `"1"`, "v2")
		if again.status != 200 || again.header.Get("Idempotent-Replayed") != "true" || again.header.Get("ETag") != `"2"` {
			t.Fatalf("the retry with its stale If-Match: %d %v %s, want the replayed 200", again.status, again.header, again.body)
		}
		// Two changes from version 2, at once.
		var wg sync.WaitGroup
		var res [2]answer
		for i := range 2 {
			wg.Go(func() { res[i] = patch(fmt.Sprintf("im-race-%d", i), `"2"`, fmt.Sprintf("v3 by %d", i)) })
		}
		wg.Wait()
		if s := []int{res[0].status, res[1].status}; !(s[0] == 200 && s[1] == 412 || s[0] == 412 && s[1] == 200) {
			t.Fatalf("two PATCHes from version 2: %d %s / %d %s, want one 200 and one 412", s[0], res[0].body, s[1], res[1].body)
		}
		d := decodeAs[board.TicketDetail](t, e.ok(call{method: "GET", path: "/api/v1/tickets/inbox-1", token: alice}, 200))
		if d.Ticket.Version != 3 {
			t.Fatalf("version %d after one winning change, want 3", d.Ticket.Version)
		}
	})
}
