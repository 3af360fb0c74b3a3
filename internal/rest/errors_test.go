package rest_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
)

// writeRoutes are the routes that need an Idempotency-Key, each with a
// body it would take.
var writeRoutes = []call{
	{method: "POST", path: "/api/v1/workspaces", body: map[string]any{"slug": "w9", "name": "W9"}},
	{method: "PATCH", path: "/api/v1/workspaces/inbox", body: map[string]any{"name": "In"}},
	{method: "POST", path: "/api/v1/workspaces/inbox/tickets", body: map[string]any{"title": "T"}},
	{method: "PATCH", path: "/api/v1/tickets/inbox-1", body: map[string]any{"title": "T"}},
	{method: "POST", path: "/api/v1/tickets/inbox-1/move", body: map[string]any{"status": "doing"}},
	{method: "POST", path: "/api/v1/tickets/inbox-1/notes", body: map[string]any{"body": "n"}},
	{method: "POST", path: "/api/v1/workspaces/inbox/imports", body: map[string]any{"tickets": []map[string]any{{"title": "T"}}}},
	{method: "POST", path: "/api/v1/tasks/" + absentTask + "/cancel"},
}

var readRoutes = []string{"/api/v1/workspaces", "/api/v1/workspaces/inbox", "/api/v1/workspaces/inbox/tickets",
	"/api/v1/tickets/inbox-1", "/api/v1/requests/k", "/api/v1/tasks/" + absentTask,
	"/api/v1/events", "/api/v1/workspaces/inbox/events"}

// 401 on every route without a credential or with a bad one, with a Bearer
// challenge; the document needs none.
func TestUnauthorized(t *testing.T) {
	e := newEnv(t, "sqlite")
	var all []call
	for _, p := range readRoutes {
		all = append(all, call{method: "GET", path: p})
	}
	for _, c := range writeRoutes {
		c.key = "k-401"
		all = append(all, c)
	}
	for _, c := range all {
		for _, tok := range []string{"", "tl_" + auth.NewSecret(), "tl_short", "not-a-token-of-ours"} {
			c.token = tok
			a := e.do(c)
			if a.status != http.StatusUnauthorized || a.problem(t).Code != "unauthorized" {
				t.Fatalf("%s %s with token %q: %d %s, want 401", c.method, c.path, tok, a.status, a.body)
			}
			challenge := a.header.Get("WWW-Authenticate")
			if !strings.HasPrefix(challenge, "Bearer ") || (tok != "") != strings.Contains(challenge, `error="invalid_token"`) {
				t.Fatalf("%s %s with token %q: WWW-Authenticate %q", c.method, c.path, tok, challenge)
			}
		}
	}
	if e.ticketCount("inbox") != 0 {
		t.Fatal("a refused write wrote")
	}
	e.ok(call{method: "GET", path: "/api/v1/openapi.json"}, 200)
}

// 400 for what cannot be a call: every write without its key, and
// malformed bodies, keys and queries; nothing is written.
func TestBadRequests(t *testing.T) {
	e := newEnv(t, "sqlite")
	alice := e.tokens["alice"]
	e.createTicket(alice, "inbox", "seed", map[string]any{"title": "seed"})
	for _, c := range writeRoutes {
		c.token, c.malformed = alice, true
		p := e.refused(c, http.StatusBadRequest, "invalid")
		if !strings.Contains(p.Detail, "Idempotency-Key header is required") {
			t.Errorf("%s %s without a key: %q", c.method, c.path, p.Detail)
		}
	}
	post := func(body any, key string, malformed bool) call {
		return call{method: "POST", path: "/api/v1/workspaces/inbox/tickets", token: alice, key: key, body: body, malformed: malformed}
	}
	for _, c := range []struct {
		name string
		call call
		want string
	}{
		{"a key a request_id could not be", post(map[string]any{"title": "x"}, "a b", true), "Idempotency-Key"},
		{"an unknown field", post(map[string]any{"title": "x", "color": "red"}, "k-1", true), "color"},
		{"an author", post(map[string]any{"title": "x", "author": "human:root"}, "k-2", true), "decided by the server"},
		{"a request_id in the body", post(map[string]any{"title": "x", "request_id": "r"}, "k-3", true), "Idempotency-Key header"},
		{"a wrong type", post(map[string]any{"title": 5}, "k-4", true), "title"},
		{"an array", post([]any{}, "k-5", true), "one JSON object"},
		{"null", post("null", "k-6", true), "one JSON object"},
		// JSON's own rules, which kin-openapi's decoder lets pass.
		{"trailing data", post(`{"title":"x"} {}`, "k-7", false), "nothing after it"},
		{"invalid UTF-8", post("{\"title\":\"\xff\xfe\"}", "k-8", false), "UTF-8"},
		{"an empty title (the domain's rule)", post(map[string]any{"title": ""}, "k-9", false), "title must not be empty"},
		{"a title with a line break", post(map[string]any{"title": "a\nb"}, "k-10", false), "title"},
		{"status in an update", call{method: "PATCH", path: "/api/v1/tickets/inbox-1", token: alice, key: "k-11", body: map[string]any{"status": "done"}}, "POST /api/v1/tickets/inbox-1/move"},
		{"a malformed If-Match", call{method: "PATCH", path: "/api/v1/tickets/inbox-1", token: alice, key: "k-12", body: map[string]any{"title": "y"},
			header: map[string]string{"If-Match": "3"}}, "If-Match"},
		// OpenAPI cannot refuse unknown query parameters; the server does.
		{"an unknown query parameter", call{method: "GET", path: "/api/v1/workspaces/inbox/tickets?colour=red", token: alice}, "unknown query parameter"},
		{"a status that is none", call{method: "GET", path: "/api/v1/workspaces/inbox/tickets?status=nowhere", token: alice, malformed: true}, "status"},
		{"a limit that is no number", call{method: "GET", path: "/api/v1/workspaces/inbox/tickets?limit=ten", token: alice, malformed: true}, "integer"},
		{"a limit out of range", call{method: "GET", path: "/api/v1/workspaces/inbox/tickets?limit=101", token: alice}, "limit"},
		{"a cursor of other filters", call{method: "GET", path: "/api/v1/workspaces/inbox/tickets?cursor=bm9wZQ", token: alice}, "cursor"},
		{"a ticket id of no form", call{method: "GET", path: "/api/v1/tickets/nohyphen", token: alice}, "ticket id"},
	} {
		p := e.refused(c.call, http.StatusBadRequest, "invalid")
		if !strings.Contains(p.Detail, c.want) {
			t.Errorf("%s: %q, want it to mention %q", c.name, p.Detail, c.want)
		}
	}
	if n := e.ticketCount("inbox"); n != 1 {
		t.Fatalf("inbox holds %d tickets after the refusals, want the 1 seed", n)
	}
}

// 413, 415 and the other statuses of one route each.
func TestStatusesOfWrites(t *testing.T) {
	e := newEnv(t, "sqlite")
	alice, claude, bob := e.tokens["alice"], e.tokens["claude"], e.tokens["bob"]
	e.createTicket(alice, "inbox", "seed", map[string]any{"title": "seed"})

	big := `{"title":"x","body":"` + strings.Repeat("a", 1<<20) + `"}`
	e.refused(call{method: "POST", path: "/api/v1/workspaces/inbox/tickets", token: alice, key: "k-big", body: big}, http.StatusRequestEntityTooLarge, "invalid")
	e.refused(call{method: "POST", path: "/api/v1/workspaces/inbox/tickets", token: alice, key: "k-txt", body: "title=x",
		header: map[string]string{"Content-Type": "text/plain"}, malformed: true}, http.StatusUnsupportedMediaType, "invalid")

	// 403: an agent creates no workspace; a member changes no settings.
	e.refused(call{method: "POST", path: "/api/v1/workspaces", token: claude, key: "k-ws", body: map[string]any{"slug": "x1", "name": "X"}}, 403, "forbidden")
	e.refused(call{method: "PATCH", path: "/api/v1/workspaces/inbox", token: bob, key: "k-ws2", body: map[string]any{"ai_policy": "hidden"}}, 403, "forbidden")
	// 404s.
	e.refused(call{method: "GET", path: "/api/v1/tickets/inbox-99", token: alice}, 404, "not_found")
	e.refused(call{method: "GET", path: "/api/v1/workspaces/nosuch", token: alice}, 404, "not_found")
	e.refused(call{method: "POST", path: "/api/v1/tickets/inbox-99/notes", token: alice, key: "k-n", body: map[string]any{"body": "x"}}, 404, "not_found")
	// 409: a slug that exists.
	e.refused(call{method: "POST", path: "/api/v1/workspaces", token: alice, key: "k-dup", body: map[string]any{"slug": "inbox", "name": "Again"}}, 409, "conflict")
	// 412: If-Match of another version; the change is not made.
	p := e.refused(call{method: "PATCH", path: "/api/v1/tickets/inbox-1", token: alice, key: "k-412", header: map[string]string{"If-Match": `"7"`},
		body: map[string]any{"title": "lost"}}, 412, "precondition_failed")
	if !strings.Contains(p.Detail, "version 1, not 7") {
		t.Errorf("412: %q", p.Detail)
	}
	e.refused(call{method: "PATCH", path: "/api/v1/tickets/inbox-1", token: alice, key: "k-412w", header: map[string]string{"If-Match": `W/"1"`},
		body: map[string]any{"title": "lost"}}, 412, "precondition_failed")
	if d := decodeAs[board.TicketDetail](t, e.ok(call{method: "GET", path: "/api/v1/tickets/inbox-1", token: alice}, 200)); d.Ticket.Title != "seed" || d.Ticket.Version != 1 {
		t.Fatalf("after the 412s the ticket is %+v", d.Ticket)
	}
	// The key of a 412 is free for the retry with the current version; *
	// matches any.
	e.ok(call{method: "PATCH", path: "/api/v1/tickets/inbox-1", token: alice, key: "k-412", header: map[string]string{"If-Match": `"1"`},
		body: map[string]any{"title": "lost"}}, 200)
	e.ok(call{method: "PATCH", path: "/api/v1/tickets/inbox-1", token: alice, key: "k-star", header: map[string]string{"If-Match": "*"},
		body: map[string]any{"title": "found"}}, 200)
}

// A failing store: 500 with an error id and no cause; a credential that
// cannot be checked: 503.
func TestStoreFailures(t *testing.T) {
	var failing failingStore
	e := newEnv(t, "sqlite", envOptions{wrap: func(s storetest.Store) storetest.Store { failing.Store = s; return &failing }})
	alice := e.tokens["alice"]
	e.createTicket(alice, "inbox", "seed", map[string]any{"title": "seed"})
	failing.failDetail.Store(true)
	p := e.refused(call{method: "GET", path: "/api/v1/tickets/inbox-1", token: alice}, 500, "internal")
	if p.ErrorID == "" || !strings.Contains(p.Detail, p.ErrorID) || strings.Contains(p.Detail, "disk on fire") {
		t.Fatalf("500: %+v, want an error id and no cause", p)
	}
	if !strings.Contains(e.logs.String(), p.ErrorID) || !strings.Contains(e.logs.String(), "disk on fire") {
		t.Fatal("the log has no line with the cause under the error id")
	}
	failing.failDetail.Store(false)
	failing.failTokens.Store(true)
	e.refused(call{method: "GET", path: "/api/v1/workspaces", token: alice}, 503, "internal")
}

type failingStore struct {
	storetest.Store
	failDetail, failTokens atomic.Bool
}

var errDiskOnFire = errors.New("disk on fire")

func (s *failingStore) ReadTicket(ctx context.Context, q board.TicketRead) (board.TicketActivity, error) {
	if s.failDetail.Load() {
		return board.TicketActivity{}, errDiskOnFire
	}
	return s.Store.ReadTicket(ctx, q)
}

func (s *failingStore) GetToken(ctx context.Context, id string) (board.APIToken, error) {
	if s.failTokens.Load() {
		return board.APIToken{}, errDiskOnFire
	}
	return s.Store.GetToken(ctx, id)
}

// LookupCredential is how a call's token is read: it fails like GetToken.
func (s *failingStore) LookupCredential(ctx context.Context, l board.CredentialLookup) (board.FoundCredential, error) {
	if s.failTokens.Load() && l.Kind == board.CredentialToken {
		return board.FoundCredential{}, errDiskOnFire
	}
	return s.Store.LookupCredential(ctx, l)
}

// 409 while the first request with a key is still running (a leased
// record, as an import holds), 422 for a key reused with another body or on
// another route; nothing is written.
func TestIdempotencyKeyStatuses(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend)
		alice := e.tokens["alice"]
		body := map[string]any{"title": "held"}
		in := board.CreateTicketInput{RequestID: "running-1", Workspace: "inbox", NewTicket: board.NewTicket{Title: "held"}}
		if err := in.Validate(); err != nil {
			t.Fatal(err)
		}
		canonical, _ := ledger.CanonicalArgs(in)
		rec := ledger.NewRecord(ledger.Key{Principal: "human:alice", RequestID: "running-1"}, board.ToolCreateTicket, canonical, e.clock.Now(), 24*time.Hour)
		rec.Status, rec.Owner, rec.LeaseUntil = ledger.StatusRunning, "worker-1", e.clock.Now().Add(time.Minute)
		if err := e.b.store.ClaimRequest(context.Background(), rec, e.clock.Now()); err != nil {
			t.Fatal(err)
		}
		p := e.refused(call{method: "POST", path: "/api/v1/workspaces/inbox/tickets", token: alice, key: "running-1", body: body}, 409, "in_progress")
		if !strings.Contains(p.Detail, "still in progress") {
			t.Errorf("409: %q", p.Detail)
		}
		e.refused(call{method: "POST", path: "/api/v1/workspaces/inbox/tickets", token: alice, key: "running-1",
			body: map[string]any{"title": "other"}}, 422, "request_id_reused")

		e.createTicket(alice, "inbox", "k-1", body)
		p = e.refused(call{method: "POST", path: "/api/v1/workspaces/inbox/tickets", token: alice, key: "k-1",
			body: map[string]any{"title": "held", "priority": "urgent"}}, 422, "request_id_reused")
		if !strings.Contains(p.Detail, "differing fields: priority") {
			t.Errorf("422 names no field: %q", p.Detail)
		}
		p = e.refused(call{method: "POST", path: "/api/v1/tickets/inbox-1/notes", token: alice, key: "k-1", body: map[string]any{"body": "x"}},
			422, "request_id_reused")
		if !strings.Contains(p.Detail, "already used for create_ticket") {
			t.Errorf("422 on another route: %q", p.Detail)
		}
		if n := e.ticketCount("inbox"); n != 1 {
			t.Fatalf("inbox holds %d tickets, want 1", n)
		}
		// The same key of another caller is another request.
		e.createTicket(e.tokens["bob"], "inbox", "k-1", map[string]any{"title": "bob's"})
		if n := e.ticketCount("inbox"); n != 2 {
			t.Fatalf("inbox holds %d tickets, want 2", n)
		}
	})
}
