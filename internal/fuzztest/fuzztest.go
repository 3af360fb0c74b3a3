// Package fuzztest is what the surfaces' fuzz targets (internal/mcpserver,
// internal/rest) hold a create_ticket call to, worked out without the code
// under test: the arguments read as plain JSON by their exact names, and
// the board's limits (docs/architecture.md, "Data") written out again here.
// A surface that decoded a key it should refuse, or validation that let a
// bad value through, then shows as a stored ticket that disagrees.
package fuzztest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// CreateKeys are the argument names of create_ticket, exactly as the schema
// spells them; REST takes the same less request_id and workspace (the
// Idempotency-Key header and the path).
var CreateKeys = []string{"request_id", "workspace", "title", "body", "priority", "owner", "due", "tags", "links"}

var linkKeys = []string{"kind", "ref", "title"}

var (
	tagRe   = regexp.MustCompile(`^[a-z0-9._-]{1,32}$`)
	ownerRe = regexp.MustCompile(`^(human|human:.+|ai:.+)$`)
)

// Object reads one JSON object, or reports that data is not one (then a
// surface must refuse it).
func Object(data []byte) (map[string]any, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false // something after the object
	}
	return m, true
}

// Prepend adds members (`"k":v,...`) at the front of a JSON object's text,
// leaving the rest byte for byte as it was, so that what is fuzzed still
// reaches the decoder as sent; a later member of the same name wins, as in
// every decoder here. Text that does not start as an object is returned
// as it is.
func Prepend(data []byte, members string) []byte {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return data
	}
	rest := trimmed[1:]
	sep := ","
	if r := bytes.TrimLeft(rest, " \t\r\n"); len(r) > 0 && r[0] == '}' {
		sep = ""
	}
	return append([]byte("{"+members+sep), rest...)
}

// CheckCreated holds a ticket that a surface stored for accepted arguments
// args (the arguments as the tool or route saw them: the REST body with the
// path's workspace added) to what they say and to the board's limits.
// author is who the surface says called.
func CheckCreated(tk board.Ticket, args map[string]any, author string) error {
	for k := range args {
		if !slices.Contains(CreateKeys, k) {
			// Case variants ("Title") included: JSON decoding into a
			// struct would match them, the schema must not.
			return fmt.Errorf("accepted the unknown key %q", k)
		}
	}
	str := func(name string) (string, error) {
		v, ok := args[name]
		if !ok {
			return "", nil
		}
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("accepted %s %v, not a string", name, v)
		}
		return s, nil
	}
	var errs []error
	check := func(ok bool, format string, a ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, a...))
		}
	}
	title, err := str("title")
	if err != nil {
		return err
	}
	body, err := str("body")
	if err != nil {
		return err
	}
	priority, err := str("priority")
	if err != nil {
		return err
	}
	owner, err := str("owner")
	if err != nil {
		return err
	}
	due, err := str("due")
	if err != nil {
		return err
	}
	workspace, err := str("workspace")
	if err != nil {
		return err
	}
	if _, ok := args["title"]; !ok {
		errs = append(errs, fmt.Errorf("accepted without a title"))
	}
	check(tk.Workspace == workspace, "workspace %q stored as %q", workspace, tk.Workspace)
	check(tk.Title == title, "title %q stored as %q", title, tk.Title)
	check(tk.Body == body, "body %q stored as %q", body, tk.Body)
	if priority == "" {
		priority = string(board.PriorityNormal)
	}
	check(string(tk.Priority) == priority, "priority %q stored as %q", priority, tk.Priority)
	check(deref(tk.Owner) == owner, "owner %q stored as %v", owner, tk.Owner)
	check(deref(tk.Due) == due, "due %q stored as %v", due, tk.Due)
	check(tk.Status == board.StatusCandidate, "a new ticket in status %q", tk.Status)
	check(tk.CreatedBy == author, "created_by %q, the caller is %q", tk.CreatedBy, author)

	var tags []string
	if raw, ok := args["tags"].([]any); ok {
		for _, v := range raw {
			s, ok := v.(string)
			if !ok {
				return fmt.Errorf("accepted the tag %v, not a string", v)
			}
			tags = append(tags, s)
		}
	} else if v, ok := args["tags"]; ok && v != nil {
		return fmt.Errorf("accepted tags %v, not a list", v)
	}
	check(slices.Equal(tk.Tags, tags), "tags %q stored as %q", tags, tk.Tags)

	var links []board.Link
	if raw, ok := args["links"].([]any); ok {
		for i, v := range raw {
			m, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("accepted links[%d] %v, not an object", i, v)
			}
			var l board.Link
			for k, x := range m {
				s, ok := x.(string)
				switch {
				case !slices.Contains(linkKeys, k):
					return fmt.Errorf("accepted the unknown key %q in links[%d]", k, i)
				case !ok:
					return fmt.Errorf("accepted links[%d].%s %v, not a string", i, k, x)
				case k == "kind":
					l.Kind = s
				case k == "ref":
					l.Ref = s
				default:
					l.Title = s
				}
			}
			links = append(links, l)
		}
	} else if v, ok := args["links"]; ok && v != nil {
		return fmt.Errorf("accepted links %v, not a list", v)
	}
	check(slices.Equal(tk.Links, links), "links %+v stored as %+v", links, tk.Links)

	// The limits, whatever the arguments said.
	n := utf8.RuneCountInString(tk.Title)
	check(n >= 1 && n <= board.MaxTitle && utf8.ValidString(tk.Title), "title of %d characters stored: %q", n, tk.Title)
	check(strings.TrimSpace(tk.Title) != "", "blank title stored: %q", tk.Title)
	check(!strings.ContainsAny(tk.Title, "\r\n\u2028\u2029"), "title of several lines stored: %q", tk.Title)
	check(utf8.RuneCountInString(tk.Body) <= board.MaxBody && utf8.ValidString(tk.Body), "body past the limit stored")
	check(slices.Contains(board.Priorities, tk.Priority), "priority %q stored", tk.Priority)
	if tk.Owner != nil {
		check(ownerRe.MatchString(*tk.Owner), "owner %q stored", *tk.Owner)
	}
	if tk.Due != nil {
		_, err := time.Parse(time.DateOnly, *tk.Due)
		check(err == nil, "due %q stored", *tk.Due)
	}
	check(len(tk.Tags) <= board.MaxTags, "%d tags stored", len(tk.Tags))
	for i, tag := range tk.Tags {
		check(tagRe.MatchString(tag), "tag %q stored", tag)
		check(!slices.Contains(tk.Tags[:i], tag), "tag %q stored twice", tag)
	}
	check(len(tk.Links) <= board.MaxLinks, "%d links stored", len(tk.Links))
	for _, l := range tk.Links {
		check(slices.Contains([]string{"article", "task", "url"}, l.Kind) && l.Ref != "", "link %+v stored", l)
	}
	return errors.Join(errs...)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// CreateSeeds are create_ticket arguments as a REST body carries them (no
// request_id, no workspace), valid and invalid, for the fuzz targets'
// corpora: every limit on either side, nulls, case variants of the keys,
// wrong types, escapes that decode to what validation refuses, and bodies
// that are not one object.
var CreateSeeds = []string{
	`{"title":"Fix the build"}`,
	`{"title":"T","body":"**md**","priority":"urgent","owner":"ai:claude","due":"2026-12-24","tags":["a","b.c"],"links":[{"kind":"url","ref":"https://x.test/a","title":"A"}]}`,
	`{"links":[{"title":"T","ref":"https://x.test","kind":"url"}],"title":"t"}`,
	`{"title":"ok","owner":"","due":""}`,
	`{"title":"ok","tags":null,"links":null}`,
	`{"title":"ok","tags":[],"links":[]}`,
	`{"title":"ok","links":[{"kind":"task","ref":"t1"}]}`,
	`{"title":"` + strings.Repeat("é", board.MaxTitle) + `"}`,
	`{"title":"` + strings.Repeat("é", board.MaxTitle+1) + `"}`,
	`{"title":""}`,
	`{"title":"   "}`,
	`{"title":"two\nlines"}`,
	`{"title":"one\u2028two"}`,
	`{"title":"\u200b"}`,
	`{"title":"invoice\u202efdp.exe"}`,
	`{"title":"\u0000"}`,
	`{"title":"\ud800"}`,
	`{"title":null}`,
	`{"title":42}`,
	`{}`,
	`{"Title":"Case variant"}`,
	`{"title":"ok","Title":"Case variant"}`,
	`{"TITLE":"ok"}`,
	`{"title":"ok","links":[{"Kind":"url","ref":"https://x.test"}]}`,
	`{"title":"ok","colour":"red"}`,
	`{"title":"ok","created_by":"human"}`,
	`{"title":"ok","priority":"asap"}`,
	`{"title":"ok","priority":""}`,
	`{"title":"ok","priority":null}`,
	`{"title":"ok","owner":"bob"}`,
	`{"title":"ok","owner":"ai:"}`,
	`{"title":"ok","due":"2026-02-29"}`,
	`{"title":"ok","due":"2028-02-29"}`,
	`{"title":"ok","tags":["a","a"]}`,
	`{"title":"ok","tags":["Big Tag"]}`,
	`{"title":"ok","tags":"a"}`,
	`{"title":"ok","links":[{"kind":"file","ref":"x"}]}`,
	`{"title":"ok","links":[{"kind":"url","ref":"/relative"}]}`,
	`{"title":"ok","links":[{"kind":"task"}]}`,
	`{"title":"first","title":"second"}`,
	`{"title":"ok"} {"title":"again"}`,
	`{"title":"ok"`,
	`[]`, `null`, `"title"`, ``,
}

// CallTool sends one tools/call of tool with args as its arguments, exactly
// as given (not re-encoded), to an /mcp handler in process, on the
// 2025-11-25 revision (stateless: no initialize needed).
func CallTool(h http.Handler, tool string, args []byte) (status int, answer []byte) {
	var body bytes.Buffer
	body.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":`)
	body.Write(args)
	body.WriteString(`}}`)
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", &body)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

// ReadCreated reads the answer of a create_ticket call: the result when the
// call was accepted, nil when it was refused (a JSON-RPC error or a tool
// error), or an error when the answer is a failure no input may cause (an
// HTTP 5xx, a JSON-RPC internal error, an internal tool error) or not
// JSON-RPC at all.
func ReadCreated(status int, answer []byte) (*board.TicketResult, error) {
	if status >= 500 {
		return nil, fmt.Errorf("HTTP %d %s", status, answer)
	}
	var msg struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
		Result *struct {
			IsError           bool                    `json:"isError"`
			Content           []struct{ Text string } `json:"content"`
			StructuredContent *board.TicketResult     `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(answer, &msg); err != nil {
		return nil, fmt.Errorf("HTTP %d, an answer that is not JSON-RPC: %s", status, answer)
	}
	switch {
	case msg.Error != nil:
		if msg.Error.Code == -32603 {
			return nil, fmt.Errorf("internal error: %s", answer)
		}
		return nil, nil
	case msg.Result == nil:
		return nil, fmt.Errorf("neither result nor error: %s", answer)
	case msg.Result.IsError:
		for _, c := range msg.Result.Content {
			if strings.Contains(c.Text, "internal problem") {
				return nil, fmt.Errorf("internal tool error: %s", c.Text)
			}
		}
		return nil, nil
	case msg.Result.StructuredContent == nil:
		return nil, fmt.Errorf("accepted without a ticket: %s", answer)
	}
	return msg.Result.StructuredContent, nil
}

// Tickets counts the board's tickets in the store, past the service.
func Tickets(tb testing.TB, st board.Store) int {
	tb.Helper()
	ws, err := st.ListWorkspaces(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	for _, w := range ws {
		for _, c := range w.Counts {
			n += c
		}
	}
	return n
}

// Stored reads a ticket back as a person would see it on the board.
func Stored(tb testing.TB, svc *board.Service, id string) board.Ticket {
	tb.Helper()
	ctx := board.WithPrincipal(context.Background(), board.Principal{Author: "human", Role: board.RoleAdmin, Source: board.SourceWeb})
	d, err := svc.GetTicket(ctx, board.TicketIDInput{ID: id})
	if err != nil {
		tb.Fatalf("the created %s cannot be read: %v", id, err)
	}
	return d.Ticket
}

// Unknown reports whether find_request, asked as p, knows nothing of
// requestID: what a refused write must leave behind.
func Unknown(tb testing.TB, svc *board.Service, p board.Principal, requestID string) bool {
	tb.Helper()
	l, err := svc.FindRequest(board.WithPrincipal(context.Background(), p), board.FindRequestInput{RequestID: requestID})
	if err != nil {
		tb.Fatal(err)
	}
	return l.Status == ledger.LookupUnknown
}
