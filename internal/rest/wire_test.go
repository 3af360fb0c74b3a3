package rest_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
)

// TestWireFieldNames reads real answers as plain JSON, never through the
// Go types that wrote them: decoding into rest.Problem or board.Ticket
// follows a renamed tag as silently as the served document does, so only
// literal field names here pin what a client sees.
// Mutation that used to pass: renaming the tag `json:"code"` to
// `json:"error_code"` in problem.go (now this test and
// TestOpenAPISnapshot fail).
func TestWireFieldNames(t *testing.T) {
	var failing failingStore
	e := newEnv(t, "sqlite", envOptions{wrap: func(s storetest.Store) storetest.Store { failing.Store = s; return &failing }})
	alice := e.tokens["alice"]

	// A created ticket: 201, the write's envelope around the ticket.
	created := e.ok(call{method: "POST", path: "/api/v1/workspaces/inbox/tickets", token: alice, key: "wire-create",
		body: map[string]any{"title": "wire", "tags": []string{"api"}}}, http.StatusCreated)
	top := rawObject(t, created)
	wantKeys(t, "created ticket", top, "replayed", "request_id", "similar", "ticket")
	if top["request_id"] != "wire-create" || top["replayed"] != false {
		t.Errorf("created ticket: request_id %v, replayed %v", top["request_id"], top["replayed"])
	}
	ticketKeys := []string{"body", "claim", "completed_at", "created_at", "created_by", "due", "id", "links", "owner",
		"priority", "status", "tags", "title", "updated_at", "url", "version", "workspace"}
	ticket := object(t, "created ticket", top["ticket"])
	wantKeys(t, "created ticket's ticket", ticket, ticketKeys...)
	if ticket["id"] != "inbox-1" || ticket["title"] != "wire" || ticket["status"] != "candidate" || ticket["version"] != 1.0 {
		t.Errorf("created ticket: %v", ticket)
	}

	// A list: the page of tickets and the cursor of the next, null on the
	// last page (present, not omitted: a client tests it for null), and the
	// total where the kept counts give it (no filter), absent otherwise.
	list := rawObject(t, e.ok(call{method: "GET", path: "/api/v1/workspaces/inbox/tickets", token: alice}, http.StatusOK))
	wantKeys(t, "ticket list", list, "next_cursor", "tickets", "total")
	if list["next_cursor"] != nil || list["total"] != 1.0 {
		t.Errorf("ticket list: next_cursor %v on the only page, want null; total %v, want 1", list["next_cursor"], list["total"])
	}
	searched := rawObject(t, e.ok(call{method: "GET", path: "/api/v1/workspaces/inbox/tickets?tag=api", token: alice}, http.StatusOK))
	wantKeys(t, "ticket list by tag", searched, "next_cursor", "tickets")
	tickets, ok := list["tickets"].([]any)
	if !ok || len(tickets) != 1 {
		t.Fatalf("ticket list: tickets %v, want one", list["tickets"])
	}
	wantKeys(t, "listed ticket", object(t, "listed ticket", tickets[0]), ticketKeys...)

	// The activity feed: events newest first, latest and next_cursor
	// present (null when there is no more), the event's own members.
	feed := rawObject(t, e.ok(call{method: "GET", path: "/api/v1/workspaces/inbox/events", token: alice}, http.StatusOK))
	wantKeys(t, "activity", feed, "events", "latest", "next_cursor", "workspace")
	events, ok := feed["events"].([]any)
	if !ok || len(events) != 1 || feed["next_cursor"] != nil || feed["latest"] == nil {
		t.Fatalf("activity: %v, want the one creation, a latest and no next page", feed)
	}
	wantKeys(t, "activity event", object(t, "activity event", events[0]), "at", "author", "id", "request_id", "source", "ticket_id", "title", "type", "workspace")

	// A task: 202, the import's task as it stands (small: completed).
	task := rawObject(t, e.ok(call{method: "POST", path: "/api/v1/workspaces/inbox/imports", token: alice, key: "wire-import",
		body: importBody("wire", 2)}, http.StatusAccepted))
	wantKeys(t, "import task", task, "imported", "progress", "replayed", "request_id", "status", "status_message", "task_id", "workspace")
	if id, _ := task["task_id"].(string); id == "" || task["status"] != "completed" || task["imported"] != 2.0 || task["workspace"] != "inbox" {
		t.Errorf("import task: %v", task)
	}
	progress := object(t, "import task's progress", task["progress"])
	wantKeys(t, "import task's progress", progress, "done", "total")
	if progress["done"] != 2.0 || progress["total"] != 2.0 {
		t.Errorf("import task's progress: %v", progress)
	}

	// A problem: RFC 9457's members and the domain's code, nothing else.
	missing := e.do(call{method: "GET", path: "/api/v1/tickets/inbox-404", token: alice})
	if missing.status != http.StatusNotFound || missing.header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("missing ticket: %d %s %s", missing.status, missing.header.Get("Content-Type"), missing.body)
	}
	problem := rawObject(t, missing)
	wantKeys(t, "problem", problem, "code", "detail", "status", "title", "type")
	if problem["code"] != "not_found" || problem["type"] != "urn:ticket-ledger:problem:not_found" || problem["status"] != 404.0 ||
		problem["title"] != "Not found" || !strings.Contains(problem["detail"].(string), "inbox-404") {
		t.Errorf("problem: %v", problem)
	}

	// An internal problem adds error_id, the name of its cause in the log.
	failing.failDetail.Store(true)
	internal := rawObject(t, e.ok(call{method: "GET", path: "/api/v1/tickets/inbox-1", token: alice}, http.StatusInternalServerError))
	failing.failDetail.Store(false)
	wantKeys(t, "internal problem", internal, "code", "detail", "error_id", "status", "title", "type")
	if id, _ := internal["error_id"].(string); id == "" || internal["code"] != "internal" || internal["status"] != 500.0 {
		t.Errorf("internal problem: %v", internal)
	}
}

// rawObject decodes an answer's body as a plain JSON object.
func rawObject(t *testing.T, a answer) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(a.body, &m); err != nil || m == nil {
		t.Fatalf("answer %d %s is not a JSON object (%v)", a.status, a.body, err)
	}
	return m
}

func object(t *testing.T, what string, v any) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: %v is not an object", what, v)
	}
	return m
}

// wantKeys checks an object has exactly these member names (sorted): a
// renamed, lost or new member fails.
func wantKeys(t *testing.T, what string, m map[string]any, want ...string) {
	t.Helper()
	got := make([]string, 0, len(m))
	for k := range m {
		got = append(got, k)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("%s has members %v, want %v", what, got, want)
	}
}
