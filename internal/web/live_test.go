package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/obs"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// The live board's change markers (live.go): a conditional GET answered 304
// while nothing changed, and a new ETag after any change a board or ticket
// page shows, wherever it was made.

// pollMarker is one conditional GET of a marker; etag "" asks without one.
func (b *browser) pollMarker(path, etag string) response {
	b.e.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.base+path, nil)
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	return b.do(req)
}

// unchanged checks that the marker still answers 304 to etag.
func (b *browser) unchanged(what, path, etag string) {
	b.e.t.Helper()
	r := b.pollMarker(path, etag)
	if r.status != http.StatusNotModified || r.body != "" {
		b.e.t.Fatalf("%s: GET %s with If-None-Match %s = %d %q, want 304 with no body", what, path, etag, r.status, r.body)
	}
}

// changed polls the marker until it answers 200 with an ETag other than
// etag (the DynamoDB index the workspace marker reads is eventually
// consistent), and returns the new ETag. The live board promises 5 s.
func (b *browser) changed(what, path, etag string) string {
	b.e.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := b.pollMarker(path, etag)
		if r.status == http.StatusOK && r.header.Get("ETag") != "" && r.header.Get("ETag") != etag {
			return r.header.Get("ETag")
		}
		if r.status != http.StatusNotModified {
			b.e.t.Fatalf("%s: GET %s = %d %q, want 200 with a new ETag or 304", what, path, r.status, r.body)
		}
		if time.Now().After(deadline) {
			b.e.t.Fatalf("%s: GET %s still answers 304 to %s after 5 s", what, path, etag)
		}
		time.Sleep(20 * time.Millisecond) // the next poll of the deadline loop
	}
}

func TestLiveMarkersMoveWithEveryChange(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		b := testbackends.Open(t, backend)
		e := &env{t: t, store: b.Store, clock: testbackends.NewClock(time.Now().UTC()), mode: auth.ModeLoopback}
		e.serve(e.store)
		// Every change below is made by another instance on the same data
		// (its own connection, on DynamoDB its own client and policy
		// copy), as a second server or a Lambda instance would.
		other, err := board.NewService(board.Config{Store: b.Reopen(t), BaseURL: "http://board.test", Now: e.clock.Now})
		if err != nil {
			t.Fatal(err)
		}
		agent := board.WithPrincipal(context.Background(), board.Principal{Author: "ai:agent", Source: board.SourceMCP})
		admin := board.WithPrincipal(context.Background(), auth.Operator)
		must := func(what string) func(any, error) {
			return func(_ any, err error) {
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
			}
		}
		br := e.browser()
		const boardPath = "/w/inbox/changes"

		first := br.pollMarker(boardPath, "")
		if first.status != http.StatusOK || !strings.HasPrefix(first.header.Get("ETag"), `"`) {
			t.Fatalf("GET %s = %d, ETag %q; want 200 with a strong ETag", boardPath, first.status, first.header.Get("ETag"))
		}
		for _, want := range []string{"no-cache", "private"} {
			if cc := first.header.Get("Cache-Control"); !strings.Contains(cc, want) {
				t.Errorf("GET %s: Cache-Control %q, want %s", boardPath, cc, want)
			}
		}
		etag := first.header.Get("ETag")
		br.unchanged("an idle board", boardPath, etag)
		br.unchanged("an idle board asked with a list of tags", boardPath, `"x", W/`+etag)

		steps := []struct {
			what string
			do   func()
		}{
			{"a ticket created over MCP", func() {
				must("create")(other.CreateTicket(agent, board.CreateTicketInput{RequestID: "c1", Workspace: "inbox", NewTicket: board.NewTicket{Title: "first"}}))
			}},
			{"a ticket updated", func() {
				title := "first, renamed"
				must("update")(other.UpdateTicket(agent, board.UpdateTicketInput{RequestID: "u1", ID: "inbox-1", Title: &title}))
			}},
			{"a ticket moved", func() {
				must("move")(other.MoveTicket(agent, board.MoveTicketInput{RequestID: "m1", ID: "inbox-1", Status: board.StatusDoing}))
			}},
			{"a note added", func() {
				must("note")(other.AddNote(agent, board.AddNoteInput{RequestID: "n1", ID: "inbox-1", Body: "noted"}))
			}},
			{"tickets imported", func() {
				must("import")(other.ImportTickets(agent, board.ImportTicketsInput{RequestID: "i1", Workspace: "inbox",
					Tickets: []board.ImportRow{{NewTicket: board.NewTicket{Title: "imported one"}}, {NewTicket: board.NewTicket{Title: "imported two"}}}}))
			}},
			{"the workspace renamed", func() {
				name := "Incoming"
				must("rename")(other.UpdateWorkspace(admin, board.UpdateWorkspaceInput{RequestID: "w1", Workspace: "inbox", Name: &name}))
			}},
			{"the AI policy changed", func() {
				must("policy")(other.SetWorkspacePolicy(admin, board.SetWorkspacePolicyInput{Workspace: "inbox", AIPolicy: board.PolicyReadOnly}))
			}},
		}
		seen := map[string]string{etag: "the start"}
		for _, s := range steps {
			s.do()
			etag = br.changed(s.what, boardPath, etag)
			if before, ok := seen[etag]; ok {
				t.Fatalf("after %s the marker is %s again, as after %s", s.what, etag, before)
			}
			seen[etag] = s.what
			br.unchanged("after "+s.what, boardPath, etag)
		}
		// The page is rendered with the marker it shows, so its first poll
		// is a 304.
		page := br.get("/w/inbox")
		if want := `data-live-etag="` + strings.Trim(etag, `"`) + `"`; !strings.Contains(page.body, want) {
			t.Errorf("the board page does not carry its marker (%s)", want)
		}

		// A ticket page follows its own ticket only.
		const ticketPath = "/tickets/inbox-1/changes"
		tr := br.pollMarker(ticketPath, "")
		if tr.status != http.StatusOK || tr.header.Get("ETag") == "" {
			t.Fatalf("GET %s = %d, want 200 with an ETag", ticketPath, tr.status)
		}
		tag := tr.header.Get("ETag")
		br.unchanged("an idle ticket", ticketPath, tag)
		title := "another"
		must("update inbox-2")(other.UpdateTicket(admin, board.UpdateTicketInput{RequestID: "u2", ID: "inbox-2", Title: &title}))
		br.unchanged("another ticket changed", ticketPath, tag)
		must("note")(other.AddNote(admin, board.AddNoteInput{RequestID: "n2", ID: "inbox-1", Body: "a person's note"}))
		tag = br.changed("a note on the ticket", ticketPath, tag)
		must("move")(other.MoveTicket(admin, board.MoveTicketInput{RequestID: "m2", ID: "inbox-1", Status: board.StatusDone}))
		tag = br.changed("the ticket moved", ticketPath, tag)
		if page := br.get("/tickets/inbox-1"); !strings.Contains(page.body, `data-live-etag="`+strings.Trim(tag, `"`)+`"`) {
			t.Errorf("the ticket page does not carry its marker %s", tag)
		}
	})
}

// The markers follow the board's rules: sign-in as for the board page, a
// workspace an AI may not see does not exist for it, people see them all.
func TestLiveMarkersFollowTheBoardsRules(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("alice", board.RoleMember)
		person := board.WithPrincipal(context.Background(), board.Principal{Author: "human:alice", Source: board.SourceWeb})
		if _, err := e.svc.CreateTicket(person, board.CreateTicketInput{RequestID: "p1", Workspace: "private", NewTicket: board.NewTicket{Title: "secret"}}); err != nil {
			t.Fatal(err)
		}

		out := e.browser()
		for _, path := range []string{"/w/inbox/changes", "/tickets/private-1/changes"} {
			r := out.pollMarker(path, "")
			if r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/signin") || r.header.Get("ETag") != "" {
				t.Errorf("signed out, GET %s = %d to %q with ETag %q; want 303 to /signin and no marker", path, r.status, r.header.Get("Location"), r.header.Get("ETag"))
			}
		}

		in := e.browser()
		in.signIn("alice", testPassword)
		for path, want := range map[string]int{
			"/w/private/changes":         http.StatusOK, // hidden from AI, not from people
			"/tickets/private-1/changes": http.StatusOK,
			"/w/nowhere/changes":         http.StatusNotFound,
			"/tickets/inbox-99/changes":  http.StatusNotFound,
			"/tickets/nowhere-1/changes": http.StatusNotFound,
		} {
			r := in.pollMarker(path, "")
			if r.status != want {
				t.Errorf("signed in, GET %s = %d, want %d", path, r.status, want)
			}
			if (r.header.Get("ETag") != "") != (want == http.StatusOK) {
				t.Errorf("signed in, GET %s: ETag %q", path, r.header.Get("ETag"))
			}
		}

		// An agent asking the same use cases: the hidden workspace and its
		// ticket do not exist, as on every read.
		agent := board.WithPrincipal(context.Background(), board.Principal{Author: "ai:agent", Source: board.SourceMCP})
		if _, err := e.svc.WorkspaceChanges(agent, board.WorkspaceInput{Workspace: "private"}); board.ErrorCode(err) != board.CodeNotFound {
			t.Errorf("WorkspaceChanges(private) for AI: %v, want not found", err)
		}
		if _, err := e.svc.TicketChanges(agent, board.TicketIDInput{ID: "private-1"}); board.ErrorCode(err) != board.CodeNotFound {
			t.Errorf("TicketChanges(private-1) for AI: %v, want not found", err)
		}
		if _, err := e.svc.WorkspaceChanges(agent, board.WorkspaceInput{Workspace: "inbox"}); err != nil {
			t.Errorf("WorkspaceChanges(inbox) for AI: %v", err)
		}
	})
}

// An idle open page costs one store request per marker a poll asks (its
// board's or ticket's, and the header's unread count): one SQLite
// statement, one DynamoDB Query or GetItem. A person may read every workspace, so
// their poll reads no policy: on DynamoDB it is one request even with a
// store that never keeps a policy copy, not one every PolicyTTL more.
func TestLiveIdlePollIsOneStoreRequest(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		b := testbackends.Open(t, backend)
		store := b.Store
		if b.Endpoint != "" {
			client, err := dynamo.NewClient(context.Background(), dynamo.ClientConfig{Endpoint: b.Endpoint})
			if err != nil {
				t.Fatal(err)
			}
			if store, err = dynamo.Open(context.Background(), dynamo.Config{Client: client, Table: b.Table, PolicyTTL: -1,
				SerializeWrites: backend == testbackends.Moto}); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { store.Close() })
		}
		svc, err := board.NewService(board.Config{Store: store})
		if err != nil {
			t.Fatal(err)
		}
		person := board.WithPrincipal(context.Background(), board.Principal{Author: "human:alice", Source: board.SourceWeb})
		if _, err := svc.CreateTicket(person, board.CreateTicketInput{RequestID: "c1", Workspace: "inbox", NewTicket: board.NewTicket{Title: "one"}}); err != nil {
			t.Fatal(err)
		}
		polls := map[string]func(ctx context.Context) error{
			"board": func(ctx context.Context) error {
				_, err := svc.WorkspaceChanges(ctx, board.WorkspaceInput{Workspace: "inbox"})
				return err
			},
			"ticket": func(ctx context.Context) error {
				_, err := svc.TicketChanges(ctx, board.TicketIDInput{ID: "inbox-1"})
				return err
			},
			"inbox count": func(ctx context.Context) error {
				_, err := svc.UnreadCount(ctx)
				return err
			},
		}
		for name, poll := range polls {
			for range 3 {
				rec := obs.NewRequest("poll")
				if err := poll(obs.NewContext(person, rec)); err != nil {
					t.Fatal(err)
				}
				if n := rec.StoreRequests(); n != 1 {
					t.Errorf("an idle %s poll made %d store requests, want 1", name, n)
				}
			}
		}
	})
}
