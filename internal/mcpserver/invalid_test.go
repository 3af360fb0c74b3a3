package mcpserver_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Every invalid input (docs/architecture.md, "Data") is refused with a message naming the
// problem, and nothing at all is written.
func TestInvalidInputIsRefusedAndWritesNothing(t *testing.T) {
	onEachStore(t, envOptions{}, func(t *testing.T, e *env) {
		cs := connect(t, e.URL, modernVersion, nil)
		call[map[string]any](t, cs, "create_ticket", map[string]any{"request_id": "base", "workspace": "inbox", "title": "Existing"})
		before := e.Witness(t)

		create := func(extra map[string]any) map[string]any {
			args := map[string]any{"request_id": "c1", "workspace": "inbox", "title": "A title"}
			for k, v := range extra {
				if v == nil {
					delete(args, k)
				} else {
					args[k] = v
				}
			}
			return args
		}
		many := func(n int, f func(i int) any) []any {
			out := make([]any, n)
			for i := range out {
				out[i] = f(i)
			}
			return out
		}
		cases := []struct {
			name, tool string
			args       map[string]any
			want       string
		}{
			{"missing request_id", "create_ticket", create(map[string]any{"request_id": nil}), "request_id"},
			{"empty request_id", "create_ticket", create(map[string]any{"request_id": ""}), "request_id: minLength"}, // the schema's rule: ledger.RequestIDPattern
			{"long request_id", "create_ticket", create(map[string]any{"request_id": strings.Repeat("a", 129)}), "more than 128"},
			{"request_id chars", "create_ticket", create(map[string]any{"request_id": "a b"}), "[A-Za-z0-9._:-]"},
			{"missing workspace", "create_ticket", create(map[string]any{"workspace": nil}), "workspace"},
			{"bad slug", "create_ticket", create(map[string]any{"workspace": "In Box"}), "not a valid slug"},
			{"missing title", "create_ticket", create(map[string]any{"title": nil}), "title"},
			{"empty title", "create_ticket", create(map[string]any{"title": ""}), "title must not be empty"},
			{"blank title", "create_ticket", create(map[string]any{"title": "   "}), "title must not be blank"},
			{"long title", "create_ticket", create(map[string]any{"title": strings.Repeat("é", 201)}), "201 characters long; the limit is 200"},
			{"title newline", "create_ticket", create(map[string]any{"title": "two\nlines"}), "one line"},
			{"title line separator", "create_ticket", create(map[string]any{"title": "one\u2028two"}), "title must be one line"},
			{"title paragraph separator", "create_ticket", create(map[string]any{"title": "one\u2029two"}), "title must be one line"},
			{"title zero-width only", "create_ticket", create(map[string]any{"title": "\u200b\u200b"}), "visible character"},
			{"title byte order mark only", "create_ticket", create(map[string]any{"title": "\ufeff"}), "visible character"},
			{"title combining marks only", "create_ticket", create(map[string]any{"title": "\u0301\u0308"}), "visible character"},
			{"title right-to-left override", "create_ticket", create(map[string]any{"title": "invoice\u202efdp.exe"}), "bidirectional control characters"},
			{"title isolate", "create_ticket", create(map[string]any{"title": "a\u2067b\u2069"}), "bidirectional control characters"},
			{"link title line separator", "create_ticket", create(map[string]any{"links": []any{map[string]any{"kind": "task", "ref": "t1", "title": "a\u2028b"}}}), "links[0].title must be one line"},
			{"update title override", "update_ticket", map[string]any{"request_id": "u6", "id": "inbox-1", "title": "\u202ereversed"}, "bidirectional control characters"},
			{"update title null", "update_ticket", map[string]any{"request_id": "u7", "id": "inbox-1", "title": nil}, "title cannot be null"},
			{"update priority null", "update_ticket", map[string]any{"request_id": "u8", "id": "inbox-1", "priority": nil}, "priority cannot be null"},
			{"update status null", "update_ticket", map[string]any{"request_id": "u9", "id": "inbox-1", "status": nil}, "call move_ticket"},
			{"long body", "create_ticket", create(map[string]any{"body": strings.Repeat("x", 20001)}), "body is 20001 characters long; the limit is 20000"},
			{"bad priority", "create_ticket", create(map[string]any{"priority": "asap"}), "priority"},
			{"bad owner", "create_ticket", create(map[string]any{"owner": "bob"}), `owner "bob" must be "human", "human:<handle>" or "ai:<name>"`},
			{"bad due format", "create_ticket", create(map[string]any{"due": "2026-1-5"}), "YYYY-MM-DD"},
			{"impossible due", "create_ticket", create(map[string]any{"due": "2026-02-30"}), "YYYY-MM-DD"},
			{"too many tags", "create_ticket", create(map[string]any{"tags": many(21, func(i int) any { return fmt.Sprintf("t%d", i) })}), "21 tags given; the limit is 20"},
			{"bad tag", "create_ticket", create(map[string]any{"tags": []any{"Big Tag"}}), "1-32 of a-z 0-9"},
			{"long tag", "create_ticket", create(map[string]any{"tags": []any{strings.Repeat("a", 33)}}), "1-32 of a-z 0-9"},
			{"duplicate tag", "create_ticket", create(map[string]any{"tags": []any{"a", "a"}}), "given twice"},
			{"too many links", "create_ticket", create(map[string]any{"links": many(21, func(i int) any { return map[string]any{"kind": "task", "ref": fmt.Sprint(i)} })}), "21 links given; the limit is 20"},
			{"bad link kind", "create_ticket", create(map[string]any{"links": []any{map[string]any{"kind": "file", "ref": "x"}}}), "kind \"file\" is not one of article, task, url"},
			{"link without ref", "create_ticket", create(map[string]any{"links": []any{map[string]any{"kind": "task"}}}), "ref"},
			{"relative url link", "create_ticket", create(map[string]any{"links": []any{map[string]any{"kind": "url", "ref": "/x"}}}), "absolute http or https URL"},
			{"unknown field", "create_ticket", create(map[string]any{"colour": "red"}), "colour"},
			{"wrong type", "create_ticket", create(map[string]any{"title": 42}), "title"},
			{"update status", "update_ticket", map[string]any{"request_id": "u1", "id": "inbox-1", "status": "done"}, "call move_ticket"},
			{"update nothing", "update_ticket", map[string]any{"request_id": "u2", "id": "inbox-1"}, "nothing to update"},
			{"update bad id", "update_ticket", map[string]any{"request_id": "u3", "id": "inbox", "title": "x"}, "<workspace>-<number>"},
			{"update long title", "update_ticket", map[string]any{"request_id": "u4", "id": "inbox-1", "title": strings.Repeat("x", 201)}, "limit is 200"},
			{"update bad due", "update_ticket", map[string]any{"request_id": "u5", "id": "inbox-1", "due": "tomorrow"}, "YYYY-MM-DD"},
			{"move bad status", "move_ticket", map[string]any{"request_id": "m1", "id": "inbox-1", "status": "closed"}, "status"},
			{"move long reason", "move_ticket", map[string]any{"request_id": "m2", "id": "inbox-1", "status": "done", "reason": strings.Repeat("r", 1001)}, "reason is 1001 characters long"},
			{"empty note", "add_note", map[string]any{"request_id": "n1", "id": "inbox-1", "body": ""}, "body must not be empty"},
			{"long note", "add_note", map[string]any{"request_id": "n2", "id": "inbox-1", "body": strings.Repeat("n", 10001)}, "limit is 10000"},
			{"missing ticket", "add_note", map[string]any{"request_id": "n3", "id": "inbox-99", "body": "x"}, "ticket 'inbox-99' not found; call list_tickets"},
			{"list limit high", "list_tickets", map[string]any{"workspace": "inbox", "limit": 101}, "limit 101 is out of range 1-100"},
			{"list limit negative", "list_tickets", map[string]any{"workspace": "inbox", "limit": -1}, "out of range"},
			{"list bad cursor", "list_tickets", map[string]any{"workspace": "inbox", "cursor": "garbage"}, "cursor is not one this server issued"},
			{"find bad id", "find_request", map[string]any{"request_id": "a b"}, "[A-Za-z0-9._:-]"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				msg := callErr(t, cs, c.tool, c.args)
				if !strings.Contains(msg, c.want) {
					t.Errorf("message %q lacks %q", msg, c.want)
				}
			})
		}
		if after := e.Witness(t); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Fatalf("refused calls wrote rows: before %v, after %v", before, after)
		}
	})
}

// A cursor is bound to its filters: reused with others it is refused
// rather than silently skipping tickets.
func TestCursorPagesAndIsBoundToFilters(t *testing.T) {
	onEachStore(t, envOptions{}, func(t *testing.T, e *env) {
		cs := connect(t, e.URL, legacyVersion, nil)
		for i := 1; i <= 5; i++ {
			call[map[string]any](t, cs, "create_ticket", map[string]any{"request_id": fmt.Sprint("p", i), "workspace": "inbox", "title": fmt.Sprint("T", i)})
		}
		var seen []string
		cursor := ""
		for page := 0; page < 5; page++ {
			args := map[string]any{"workspace": "inbox", "limit": 2}
			if cursor != "" {
				args["cursor"] = cursor
			}
			l := call[struct {
				Tickets []struct {
					ID string `json:"id"`
				} `json:"tickets"`
				NextCursor *string `json:"next_cursor"`
			}](t, cs, "list_tickets", args)
			for _, tk := range l.Tickets {
				seen = append(seen, tk.ID)
			}
			if l.NextCursor == nil {
				break
			}
			cursor = *l.NextCursor
			if page == 0 {
				msg := callErr(t, cs, "list_tickets", map[string]any{"workspace": "inbox", "limit": 2, "status": "done", "cursor": cursor})
				if !strings.Contains(msg, "other filters") {
					t.Errorf("cursor with other filters: %q", msg)
				}
			}
		}
		if strings.Join(seen, ",") != "inbox-5,inbox-4,inbox-3,inbox-2,inbox-1" {
			t.Fatalf("pages = %v", seen)
		}
	})
}

// Bytes that are not UTF-8 and bodies past the limit are refused before any
// decoding, so nothing mangled is stored.
func TestRawBodyChecks(t *testing.T) {
	onEachStore(t, envOptions{}, func(t *testing.T, e *env) {
		post := func(body string, header map[string]string) (int, string) {
			req, _ := http.NewRequest(http.MethodPost, e.URL, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", legacyVersion)
			for k, v := range header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_ticket","arguments":{"request_id":"raw","workspace":"inbox","title":"%s"}}}`

		status, body := post(fmt.Sprintf(call, "bad \xff\xfe bytes"), nil)
		if status != http.StatusBadRequest || !strings.Contains(body, "not valid UTF-8") || !strings.Contains(body, "-32700") {
			t.Errorf("invalid UTF-8: %d %s", status, body)
		}
		status, body = post(fmt.Sprintf(call, strings.Repeat("x", 2<<20)), nil)
		if status != http.StatusRequestEntityTooLarge || !strings.Contains(body, "larger than") {
			t.Errorf("oversize: %d %s", status, body)
		}
		status, body = post(fmt.Sprintf(call, "ok"), map[string]string{"Origin": "http://evil.example"})
		if status != http.StatusForbidden || !strings.Contains(body, "origin") {
			t.Errorf("foreign origin: %d %s", status, body)
		}
		status, body = post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"drop_tables","arguments":{}}}`, nil)
		if !strings.Contains(body, `"error"`) || !strings.Contains(body, "drop_tables") {
			t.Errorf("unknown tool must be a JSON-RPC error: %d %s", status, body)
		}
		if got := e.Witness(t); got["tickets"] != 0 || got["requests"] != 0 || got["events"] != 0 {
			t.Fatalf("refused requests wrote rows: %v", got)
		}
		status, body = post(fmt.Sprintf(call, "fine"), map[string]string{"Origin": strings.TrimSuffix(e.URL, "/mcp")})
		if status != http.StatusOK || !strings.Contains(body, `"inbox-1"`) {
			t.Errorf("same-origin call: %d %s", status, body)
		}
	})
}

// null in update_ticket is never read as absent: it clears tags, links and
// body as it clears owner and due, and the same intent sent as [] or ""
// is the same call (a replay, not a mismatch).
func TestUpdateNullClears(t *testing.T) {
	onEachStore(t, envOptions{}, func(t *testing.T, e *env) {
		cs := connect(t, e.URL, legacyVersion, nil)
		made := call[board.TicketResult](t, cs, "create_ticket", map[string]any{"request_id": "c", "workspace": "inbox", "title": "Full",
			"body": "text", "owner": "human", "due": "2026-12-24", "tags": []string{"a", "b"},
			"links": []any{map[string]any{"kind": "url", "ref": "https://example.test/x"}}})
		cleared := call[board.TicketResult](t, cs, "update_ticket", map[string]any{"request_id": "clear", "id": made.Ticket.ID,
			"tags": nil, "links": nil, "body": nil, "owner": nil, "due": nil})
		tk := cleared.Ticket
		if len(tk.Tags) != 0 || len(tk.Links) != 0 || tk.Body != "" || tk.Owner != nil || tk.Due != nil || tk.Version != 2 {
			t.Fatalf("after clearing with null: %+v, want no tags, links, body, owner or due, version 2", tk)
		}
		stored := call[board.TicketDetail](t, cs, "get_ticket", map[string]any{"id": made.Ticket.ID})
		if len(stored.Ticket.Tags) != 0 || len(stored.Ticket.Links) != 0 || stored.Ticket.Body != "" {
			t.Fatalf("stored after clearing: %+v", stored.Ticket)
		}
		if len(stored.History) != 2 || strings.Join(stored.History[1].Fields, ",") != "body,owner,due,tags,links" {
			t.Errorf("history of the clearing: %+v, want one update naming body, owner, due, tags, links", stored.History)
		}
		again := call[board.TicketResult](t, cs, "update_ticket", map[string]any{"request_id": "clear", "id": made.Ticket.ID,
			"tags": []string{}, "links": []any{}, "body": "", "owner": nil, "due": nil})
		if !again.Replayed || again.Ticket.Version != 2 {
			t.Errorf("the same clearing with [] and \"\": %+v, want the replay", again)
		}
	})
}
