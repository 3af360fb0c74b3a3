package mcpserver_test

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// A ticket resource shows the ticket's fields, its description, its newest
// notes and its history; a description of 20 000 characters and more notes
// than are shown are cut, each with the tool that reads the rest.
func TestResourceReadTicket(t *testing.T) {
	onStoresAndRevisions(t, func(t *testing.T, e *env, cs *mcp.ClientSession) {
		s := seedAs(t, e, board.WithPrincipal(t.Context(), agent))
		body := "Intro line.\n\n" + strings.Repeat("é", 20000-len("Intro line.\n\n")-1) + "Z"
		tk := s.create(board.CreateTicketInput{Workspace: "inbox", NewTicket: board.NewTicket{Title: "Fix the login page", Body: body, Priority: board.PriorityHigh, Owner: "human:alice", Due: "2026-12-24", Tags: []string{"auth", "web"}}})
		for i := range 14 {
			s.note(tk.ID, "note-"+string(rune('a'+i))+" "+strings.Repeat("n", 3000))
		}
		s.move(tk.ID, board.StatusDoing, "picked up")

		md := readText(t, cs, "ticket://"+tk.ID)
		for _, want := range []string{
			"# " + tk.ID + ": Fix the login page", "- status: doing", "- priority: high", "- owner: human:alice",
			"- due: 2026-12-24", "- tags: auth, web", "- created: ", "by ai:tester", "http://board.test/tickets/" + tk.ID,
			"Intro line.", "## Notes", "## History", "moved candidate → doing (picked up) by ai:tester (mcp)",
			`cut at 8000 of its 20000 characters: call get_ticket with id "` + tk.ID + `"`,
			`Only the newest 10 notes are shown: call list_ticket_notes with id "` + tk.ID + `"`,
			"list_ticket_notes with id \"" + tk.ID + "\" has it whole",
			"note-n ", // the newest note
			`Only the newest 10 events are shown: call list_ticket_history with id "` + tk.ID + `"`,
		} {
			if !strings.Contains(md, want) {
				t.Errorf("ticket resource lacks %q", want)
			}
		}
		if t.Failed() {
			t.Logf("the resource:\n%s", md)
		}
		if strings.Contains(md, "note-a ") || strings.Contains(md, "Z\n") {
			t.Errorf("the oldest note or the end of the cut description is shown")
		}
		if n := len(md); n > 64<<10 {
			t.Errorf("ticket resource is %d bytes; the bounds keep it under 64 KiB", n)
		}
	})
}

// For AI a hidden workspace and its tickets do not exist: reading them
// answers exactly as reading absent ones, while a person reads them.
func TestResourceHiddenIsNotFound(t *testing.T) {
	onStoresAndRevisions(t, func(t *testing.T, e *env, cs *mcp.ClientSession) {
		seedPolicyTickets(t, e)
		if _, err := e.Svc.GetTicket(human(), board.TicketIDInput{ID: "private-1"}); err != nil {
			t.Fatalf("a person cannot read private-1: %v", err)
		}
		for _, c := range []struct{ hidden, absent, hiddenName, absentName string }{
			{"ticket://private-1", "ticket://inbox-99", "private-1", "inbox-99"},
			{"workspace://private", "workspace://nosuch", "private", "nosuch"},
		} {
			_, errHidden := readResource(cs, c.hidden)
			_, errAbsent := readResource(cs, c.absent)
			h, a := rpcErr(t, c.hidden, errHidden), rpcErr(t, c.absent, errAbsent)
			if h.Code != mcp.CodeResourceNotFound || a.Code != h.Code {
				t.Errorf("codes: hidden %d, absent %d; want both %d", h.Code, a.Code, mcp.CodeResourceNotFound)
			}
			if !strings.Contains(h.Message, "not found") || !sameShape(h.Message, c.hiddenName, a.Message, c.absentName) {
				t.Errorf("hidden %q and absent %q answer differently", h.Message, a.Message)
			}
			if !sameShape(string(h.Data), c.hiddenName, string(a.Data), c.absentName) {
				t.Errorf("error data differs: hidden %s, absent %s", h.Data, a.Data)
			}
		}
		// read_only is readable.
		if md := readText(t, cs, "ticket://reference-1"); !strings.Contains(md, "Kept by people") {
			t.Errorf("reference-1 resource: %q", md)
		}
		if md := readText(t, cs, "workspace://reference"); !strings.Contains(md, "AI policy: read_only") || !strings.Contains(md, "- candidate: 1") {
			t.Errorf("reference summary resource: %q", md)
		}
		// A malformed id is the domain's refusal, not a not-found.
		_, err := readResource(cs, "ticket://not_an_id")
		if e := rpcErr(t, "malformed id", err); e.Code != -32602 || strings.Contains(e.Message, "not found") {
			t.Errorf("malformed id: %d %q", e.Code, e.Message)
		}
	})
}

// resources/list offers the recently changed tickets, newest change first,
// then the workspaces, and never a hidden workspace or its tickets.
func TestResourcesListRecentTickets(t *testing.T) {
	onStoresAndRevisions(t, func(t *testing.T, e *env, cs *mcp.ClientSession) {
		ai := seedAs(t, e, board.WithPrincipal(t.Context(), agent))
		people := seedAs(t, e, human())
		first := ai.create(board.CreateTicketInput{Workspace: "inbox", NewTicket: board.NewTicket{Title: "First"}})
		second := ai.create(board.CreateTicketInput{Workspace: "inbox", NewTicket: board.NewTicket{Title: "Second"}})
		ref := people.create(board.CreateTicketInput{Workspace: "reference", NewTicket: board.NewTicket{Title: "Reference doc"}})
		ai.note(first.ID, "first changed last") // first is now the newest change
		secret := people.create(board.CreateTicketInput{Workspace: "private", NewTicket: board.NewTicket{Title: "Secret plan"}})
		people.note(secret.ID, "newest of all")

		res, err := cs.ListResources(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var uris []string
		for _, r := range res.Resources {
			uris = append(uris, r.URI)
			if strings.Contains(r.URI, "private") || strings.Contains(r.Title, "Secret") || strings.Contains(r.Description, "private") {
				t.Errorf("a hidden workspace's resource is listed: %+v", r)
			}
			if r.MIMEType != "text/markdown" || r.Name == "" || r.Title == "" {
				t.Errorf("resource %+v lacks a name, title or MIME type", r)
			}
		}
		want := []string{"ticket://" + first.ID, "ticket://" + ref.ID, "ticket://" + second.ID, "workspace://inbox", "workspace://reference"}
		if !slices.Equal(uris, want) {
			t.Fatalf("resources/list = %v, want %v", uris, want)
		}
		if got := res.Resources[0].Title; got != first.ID+": First" {
			t.Errorf("title %q, want the id and the ticket's title", got)
		}
		// A person sees the hidden workspace's ticket, newest first.
		all, err := e.Svc.RecentTickets(human(), board.RecentTicketsInput{})
		if err != nil || len(all.Tickets) != 4 || all.Tickets[0].Ticket.ID != secret.ID {
			t.Errorf("a person's recent tickets = %+v, %v; want private-1 first of 4", all, err)
		}
	})
}

// Resources registered up front (the conformance server's fixtures) stay
// listed and readable after the caller's own, which lead the list.
func TestResourcesListKeepsStaticResources(t *testing.T) {
	for _, version := range []string{legacyVersion, modernVersion} {
		t.Run(version, func(t *testing.T) {
			st := testbackends.Open(t, testbackends.SQLite).Store
			svc, err := board.NewService(board.Config{Store: st, BaseURL: "http://board.test"})
			if err != nil {
				t.Fatal(err)
			}
			server := mcpserver.NewServer(svc, mcpserver.Options{Principal: mcpserver.StaticPrincipal(agent)})
			server.AddResource(&mcp.Resource{URI: "test://static", Name: "static", MIMEType: "text/plain"},
				func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
					return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "fixed"}}}, nil
				})
			ts := httptest.NewServer(mcpserver.Handler(server, mcpserver.HandlerOptions{}))
			t.Cleanup(ts.Close)
			made, err := svc.CreateTicket(board.WithPrincipal(t.Context(), agent), board.CreateTicketInput{RequestID: "s1", Workspace: "inbox", NewTicket: board.NewTicket{Title: "Listed"}})
			if err != nil {
				t.Fatal(err)
			}
			cs := connect(t, ts.URL+"/mcp", version, nil)
			res, err := cs.ListResources(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var uris []string
			for _, r := range res.Resources {
				uris = append(uris, r.URI)
			}
			want := []string{"ticket://" + made.Ticket.ID, "workspace://inbox", "workspace://reference", "test://static"}
			if !slices.Equal(uris, want) {
				t.Fatalf("resources/list = %v, want %v", uris, want)
			}
			if res.CacheScope != "private" {
				t.Errorf("cache scope %q, want private: the list is the caller's", res.CacheScope)
			}
			if got, err := readResource(cs, "test://static"); err != nil || got.Contents[0].Text != "fixed" {
				t.Errorf("static resource read: %+v, %v", got, err)
			}
		})
	}
}
