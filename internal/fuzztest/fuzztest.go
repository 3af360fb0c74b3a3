// Package fuzztest is what the surfaces' fuzz targets (internal/mcpserver,
// internal/rest) hold a create_ticket or update_ticket call to, worked out
// without the code under test: the arguments read as plain JSON by their exact names, and
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
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
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
	if err := knownKeys(args, CreateKeys); err != nil {
		return err
	}
	want := board.Ticket{Status: board.StatusCandidate, Priority: board.PriorityNormal, CreatedBy: author}
	if _, ok := args["title"]; !ok {
		return fmt.Errorf("accepted without a title")
	}
	for name, v := range args {
		if name == "request_id" {
			continue
		}
		if v == nil && name != "tags" && name != "links" {
			return fmt.Errorf("accepted %s null", name)
		}
		if err := apply(&want, name, v); err != nil {
			return err
		}
	}
	if want.Owner != nil && *want.Owner == "" {
		want.Owner = nil // create_ticket: "" is no owner
	}
	if want.Due != nil && *want.Due == "" {
		want.Due = nil
	}
	errs := compare(want, tk)
	if tk.Workspace != want.Workspace {
		errs = append(errs, fmt.Errorf("workspace %q stored as %q", want.Workspace, tk.Workspace))
	}
	if tk.Status != want.Status {
		errs = append(errs, fmt.Errorf("a new ticket in status %q", tk.Status))
	}
	if tk.CreatedBy != want.CreatedBy {
		errs = append(errs, fmt.Errorf("created_by %q, the caller is %q", tk.CreatedBy, author))
	}
	return errors.Join(append(errs, limits(tk)...)...)
}

// UpdateKeys are the argument names of update_ticket; status is among them
// only so that its refusal can name move_ticket.
var UpdateKeys = []string{"request_id", "id", "title", "body", "priority", "owner", "due", "tags", "links", "status"}

// CheckUpdated holds the ticket after an accepted update_ticket to the
// ticket before it with the arguments applied: an absent field stays, a
// given one replaces, null clears body, owner, due, tags and links and is
// refused for title and priority; status is never changed here; and at
// least one field is given.
func CheckUpdated(before, after board.Ticket, args map[string]any) error {
	if err := knownKeys(args, UpdateKeys); err != nil {
		return err
	}
	if _, ok := args["status"]; ok {
		return fmt.Errorf("accepted a status in update_ticket")
	}
	want := before
	fields := 0
	for name, v := range args {
		if name == "request_id" || name == "id" {
			continue
		}
		fields++
		if v == nil && (name == "title" || name == "priority") {
			return fmt.Errorf("accepted %s null", name)
		}
		if err := apply(&want, name, v); err != nil {
			return err
		}
	}
	if fields == 0 {
		return fmt.Errorf("accepted an update of no field")
	}
	errs := compare(want, after)
	if after.ID != before.ID || after.Status != before.Status || after.CreatedBy != before.CreatedBy {
		errs = append(errs, fmt.Errorf("id, status or created_by changed: %+v -> %+v", before, after))
	}
	return errors.Join(append(errs, limits(after)...)...)
}

func knownKeys(args map[string]any, known []string) error {
	for k := range args {
		if !slices.Contains(known, k) {
			// Case variants ("Title") included: JSON decoding into a
			// struct would match them, the schema must not.
			return fmt.Errorf("accepted the unknown key %q", k)
		}
	}
	return nil
}

// apply sets the field name of tk to the argument v, a plain JSON value;
// null clears.
func apply(tk *board.Ticket, name string, v any) error {
	if v == nil {
		switch name {
		case "body":
			tk.Body = ""
		case "owner":
			tk.Owner = nil
		case "due":
			tk.Due = nil
		case "tags":
			tk.Tags = nil
		case "links":
			tk.Links = nil
		}
		return nil
	}
	switch name {
	case "tags":
		raw, ok := v.([]any)
		if !ok {
			return fmt.Errorf("accepted tags %v, not a list", v)
		}
		tk.Tags = nil
		for _, x := range raw {
			s, ok := x.(string)
			if !ok {
				return fmt.Errorf("accepted the tag %v, not a string", x)
			}
			tk.Tags = append(tk.Tags, s)
		}
		return nil
	case "links":
		raw, ok := v.([]any)
		if !ok {
			return fmt.Errorf("accepted links %v, not a list", v)
		}
		tk.Links = nil
		for i, x := range raw {
			m, ok := x.(map[string]any)
			if !ok {
				return fmt.Errorf("accepted links[%d] %v, not an object", i, x)
			}
			var l board.Link
			for k, y := range m {
				s, ok := y.(string)
				switch {
				case !slices.Contains(linkKeys, k):
					return fmt.Errorf("accepted the unknown key %q in links[%d]", k, i)
				case !ok:
					return fmt.Errorf("accepted links[%d].%s %v, not a string", i, k, y)
				case k == "kind":
					l.Kind = s
				case k == "ref":
					l.Ref = s
				default:
					l.Title = s
				}
			}
			tk.Links = append(tk.Links, l)
		}
		return nil
	}
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("accepted %s %v, not a string", name, v)
	}
	switch name {
	case "workspace":
		tk.Workspace = s
	case "title":
		tk.Title = s
	case "body":
		tk.Body = s
	case "priority":
		tk.Priority = board.Priority(s)
	case "owner":
		tk.Owner = &s
	case "due":
		tk.Due = &s
	}
	return nil
}

// compare: the fields an argument sets, as wanted and as stored (no tags
// and [] alike).
func compare(want, got board.Ticket) []error {
	var errs []error
	check := func(ok bool, format string, a ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, a...))
		}
	}
	check(got.Title == want.Title, "title %q stored as %q", want.Title, got.Title)
	check(got.Body == want.Body, "body %q stored as %q", want.Body, got.Body)
	check(got.Priority == want.Priority, "priority %q stored as %q", want.Priority, got.Priority)
	check(deref(got.Owner) == deref(want.Owner), "owner %q stored as %q", deref(want.Owner), deref(got.Owner))
	check(deref(got.Due) == deref(want.Due), "due %q stored as %q", deref(want.Due), deref(got.Due))
	check(slices.Equal(got.Tags, want.Tags), "tags %q stored as %q", want.Tags, got.Tags)
	check(slices.Equal(got.Links, want.Links), "links %+v stored as %+v", want.Links, got.Links)
	return errs
}

// limits are the board's limits (docs/architecture.md, "Data"), whatever
// the arguments said.
func limits(tk board.Ticket) []error {
	var errs []error
	check := func(ok bool, format string, a ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, a...))
		}
	}
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
	return errs
}

func deref(s *string) string {
	if s == nil {
		return "(none)"
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

// ReadTicketResult reads the answer of a create_ticket or update_ticket
// call: the result when the call was accepted, nil when it was refused (a
// JSON-RPC error or a tool error), or an error when the answer is a
// failure no input may cause (an HTTP 5xx, a JSON-RPC internal error, an
// internal tool error) or not JSON-RPC at all.
func ReadTicketResult(status int, answer []byte) (*board.TicketResult, error) {
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

// OpenSQLite opens a fresh embedded store for one fuzzing run. It lives in
// memory (/dev/shm) where the machine has it: every write syncs the file
// (synchronous FULL), and on a disk those syncs, not the code under test,
// were most of each input's time (about four times fewer inputs tried in
// the same bound).
func OpenSQLite(tb testing.TB) *sqlite.Store {
	tb.Helper()
	dir := ""
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "ledger-fuzz-"); err == nil {
			dir = d
			tb.Cleanup(func() { os.RemoveAll(d) })
		}
	}
	if dir == "" {
		dir = tb.TempDir()
	}
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, sqlite.FileName))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}
