package boardfile_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/boardfile"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// TestLoadHoldsItemsToServiceLimits: an item the service would not have
// written stops the import at its line, whatever its kind, and nothing
// from that line on is written.
func TestLoadHoldsItemsToServiceLimits(t *testing.T) {
	clock := testbackends.NewClock(t0)
	src := open(t, testbackends.SQLite, clock)
	grow(t, src, 4)
	connectAgents(t, src)
	file := export(t, src, boardfile.ExportOptions{WithPeople: true})
	lines := strings.Split(strings.TrimSuffix(string(file), "\n"), "\n")
	find := func(parts ...string) int {
		t.Helper()
		for i, l := range lines {
			ok := true
			for _, p := range parts {
				ok = ok && strings.Contains(l, p)
			}
			if ok {
				return i
			}
		}
		t.Fatalf("no line holds %q", parts)
		return 0
	}
	moved := find(`"type":"ticket.moved"`)
	updated := find(`"type":"ticket.updated"`)
	request := find(`{"kind":"request"`, `"tool":"create_ticket"`)
	ticket := find(`{"kind":"ticket","ticket":{"id":"ops-2"`)
	ops := find(`{"kind":"workspace","workspace":{"slug":"ops"`)
	token := find(`{"kind":"token"`)
	client := find(`{"kind":"oauth_client"`)
	year := clock.Now().Add(365 * 24 * time.Hour).UTC().Format(time.RFC3339)
	sub := func(i int, old, repl string) (int, string) {
		t.Helper()
		if !strings.Contains(lines[i], old) {
			t.Fatalf("line %d holds no %s", i+1, old)
		}
		return i, strings.Replace(lines[i], old, repl, 1)
	}
	reSub := func(i int, re, repl string) (int, string) {
		t.Helper()
		out := regexp.MustCompile(re).ReplaceAllString(lines[i], repl)
		if out == lines[i] {
			t.Fatalf("line %d holds no %s", i+1, re)
		}
		return i, out
	}
	big := func(n int) string { return strings.Repeat("r", n) }
	tooFar := fmt.Sprint(int64(board.MaxTicketNumber) + 1)
	cases := []struct {
		name string
		at   func() (int, string)
		want string
	}{
		{"move reason over the limit", func() (int, string) {
			return sub(moved, `"reason":"finished"`, `"reason":"`+big(board.MaxReason+1)+`"`)
		}, "reason is 1001 characters"},
		{"move reason of half a megabyte", func() (int, string) { return sub(moved, `"reason":"finished"`, `"reason":"`+big(500_000)+`"`) }, "the limit is 1000"},
		{"move to no status", func() (int, string) { return sub(moved, `"to":"done"`, `"to":"gone"`) }, `status "gone"`},
		{"fields no write changes", func() (int, string) { return sub(updated, `"fields":["title"]`, `"fields":["title","colour"]`) }, `field "colour"`},
		{"fields without end", func() (int, string) {
			return sub(updated, `"fields":["title"]`, `"fields":["title"`+strings.Repeat(`,"title"`, 50_000)+`]`)
		}, "names at most 7"},
		{"event title over a ticket's", func() (int, string) {
			return reSub(updated, `"title":"[^"]*","fields"`, `"title":"`+big(board.MaxTitle+1)+`","fields"`)
		}, "title is 201"},
		{"change of a field the event does not name", func() (int, string) {
			return sub(updated, `"changes":[{"field":"title"`, `"changes":[{"field":"priority"`)
		}, `change of "priority"`},
		{"change value of another kind", func() (int, string) { return reSub(updated, `"after":"[^"]*"`, `"after":{"a":[1,2]}`) }, "must be a string"},
		{"a reason on a created event", func() (int, string) {
			return sub(find(`"type":"ticket.created"`), `"type":"ticket.created"`, `"type":"ticket.created","reason":"x"`)
		}, "only a ticket.moved, ticket.released or ticket.claim_broken event"},
		{"an event type the service never writes", func() (int, string) { return sub(updated, `"type":"ticket.updated"`, `"type":"ticket.deleted"`) }, `type "ticket.deleted"`},
		{"request arguments over any call's", func() (int, string) {
			return sub(request, `"args":{`, `"args":{"pad":"`+big(board.MaxTransferredJSON)+`",`)
		}, "more than any call's"},
		{"request result that is no object", func() (int, string) {
			return reSub(request, `"result":\{.*\},"created_at"`, `"result":"done","created_at"`)
		}, "result must be a JSON object"},
		{"request with no fingerprint", func() (int, string) { return reSub(request, `"fingerprint":"[0-9a-f]+"`, `"fingerprint":"x"`) }, "fingerprint"},
		{"ticket number at 2^40", func() (int, string) {
			i, l := sub(ticket, `"id":"ops-2"`, `"id":"ops-`+tooFar+`"`)
			lines := append([]string(nil), lines...)
			lines[i] = l
			return sub2(lines, i, `"number":2}`, `"number":`+tooFar+`}`)
		}, "out of range"},
		{"workspace counter past 2^40", func() (int, string) { return reSub(ops, `"next_number":\d+`, `"next_number":`+tooFar+`1`) }, "next_number"},
		{"ticket url of another ticket", func() (int, string) { return sub(ticket, `/tickets/ops-2"`, `/tickets/ops-3"`) }, "url"},
		{"ticket url that is a script", func() (int, string) { return sub(ticket, `"url":"http://board.test/`, `"url":"javascript:alert(1)//`) }, "url"},
		{"ticket owner that is nobody", func() (int, string) { return sub(ticket, `"owner":"ai:alice"`, `"owner":"root"`) }, "owner"},
		{"password hash of half a megabyte", func() (int, string) {
			return reSub(find(`{"kind":"person"`), `"password_hash":"[^"]*"`, `"password_hash":"`+big(500_000)+`"`)
		}, "not a password hash"},
		{"token agent that is no name", func() (int, string) { return sub(token, `"agent":"alice"`, `"agent":"ai:<script>"`) }, "agent"},
		{"token id that is not its hash's", func() (int, string) { return sub(token, `"id":"abababababababab"`, `"id":"0123456789abcdef"`) }, "first 16 digits"},
		{"client redirecting to plain http", func() (int, string) {
			return reSub(client, `"redirect_uris":\[[^]]*\]`, `"redirect_uris":["http://evil.example/cb"]`)
		}, "not loopback"},
		{"registered client kept for a year", func() (int, string) {
			return sub(client, `"created_at"`, `"expires_at":"`+year+`","created_at"`)
		}, "later than this server keeps"},
		{"metadata document cached for a year", func() (int, string) {
			i, l := reSub(client, `"id":"tlc_[0-9a-f]+","kind":"registered"`, `"id":"https://app.example/client.json","kind":"metadata_document"`)
			lines := append([]string(nil), lines...)
			lines[i] = l
			return sub2(lines, i, `"created_at"`, `"expires_at":"`+year+`","created_at"`)
		}, "later than this server keeps"},
		{"metadata document that never expires", func() (int, string) {
			return reSub(client, `"id":"tlc_[0-9a-f]+","kind":"registered"`, `"id":"https://app.example/client.json","kind":"metadata_document"`)
		}, "must expire"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			i, l := c.at()
			bad := append([]string(nil), lines...)
			bad[i] = l
			if len(l) > boardfile.MaxLine {
				t.Fatalf("the bad line is %d bytes, over the line limit: it would test that instead", len(l))
			}
			dst := open(t, testbackends.SQLite, clock)
			fresh := len(items(export(t, dst, boardfile.ExportOptions{WithPeople: true})))
			res, err := boardfile.Load(context.Background(), dst.store, strings.NewReader(strings.Join(bad, "\n")+"\n"),
				boardfile.LoadOptions{Now: clock.Now(), WithPeople: true})
			var le *boardfile.LineError
			if !errors.As(err, &le) || le.Line != i+1 || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("import: %.300v; want a line %d error with %q", err, i+1, c.want)
			}
			before := itemLines(lines[:i])
			if strings.HasPrefix(lines[i], `{"kind":"workspace"`) {
				before = 0 // the workspaces are all read before any is written
			}
			if res.WrittenTotal()+total(res.AlreadyThere) != before {
				t.Errorf("%d items written or found, want the %d items before the bad line", res.WrittenTotal()+total(res.AlreadyThere), before)
			}
			if got := len(items(export(t, dst, boardfile.ExportOptions{WithPeople: true}))) - fresh; got > res.WrittenTotal() {
				t.Errorf("the target holds %d new items, more than the %d the import reported written", got, res.WrittenTotal())
			}
		})
	}
}

// sub2 replaces old in lines[i] once.
func sub2(lines []string, i int, old, repl string) (int, string) {
	return i, strings.Replace(lines[i], old, repl, 1)
}

// TestLargestItemFitsALine: the largest item the service writes — a
// create whose every field is at its limit, of the characters JSON
// escapes most — moves, and its request record's line is within MaxLine.
func TestLargestItemFitsALine(t *testing.T) {
	clock := testbackends.NewClock(t0)
	src := open(t, testbackends.SQLite, clock)
	// Characters JSON writes in 6 bytes wherever it is written: a control
	// character where the service takes one (body, link refs), and < in
	// the one-line fields (escaped in results, not in arguments).
	const control, angle = "\x01", "<"
	links := make([]board.Link, board.MaxLinks)
	for i := range links {
		links[i] = board.Link{Kind: "article", Ref: strings.Repeat(control, board.MaxLinkRef), Title: strings.Repeat(angle, board.MaxLinkTitle)}
	}
	tags := make([]string, board.MaxTags)
	for i := range tags {
		tags[i] = fmt.Sprintf("%032d", i)
	}
	in := board.CreateTicketInput{
		RequestID: "largest",
		Workspace: "inbox",
		NewTicket: board.NewTicket{
			Title: "T" + strings.Repeat(angle, board.MaxTitle-1),
			Body:  strings.Repeat(control, board.MaxBody),
			Tags:  tags,
			Links: links,
			Owner: "ai:" + strings.Repeat("a", board.MaxAgentName),
			Due:   "2026-12-24",
		},
	}
	if _, err := src.svc.CreateTicket(src.as("human:ada", "", board.RoleAdmin), in); err != nil {
		t.Fatal(err)
	}
	file := export(t, src, boardfile.ExportOptions{})
	longest := 0
	for _, l := range bytes.Split(file, []byte("\n")) {
		longest = max(longest, len(l))
	}
	if longest > boardfile.MaxLine {
		t.Fatalf("the largest item's line is %d bytes, over MaxLine %d", longest, boardfile.MaxLine)
	}
	t.Logf("the largest line is %d bytes; MaxLine is %d", longest, boardfile.MaxLine)
	dst := open(t, testbackends.SQLite, clock)
	if res := loadInto(t, dst, file, boardfile.LoadOptions{}); res.Written[boardfile.KindRequest] != 1 || res.Written[boardfile.KindTicket] != 1 {
		t.Errorf("written %v; want the ticket and its request record", res.Written)
	}
}
