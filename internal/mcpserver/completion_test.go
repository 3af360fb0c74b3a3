package mcpserver_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// complete asks completion/complete for one argument of a reference.
func complete(cs *mcp.ClientSession, ref *mcp.CompleteReference, arg, value string) (*mcp.CompleteResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callBound)
	defer cancel()
	return cs.Complete(ctx, &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}})
}

var (
	ticketRef    = &mcp.CompleteReference{Type: "ref/resource", URI: "ticket://{id}"}
	workspaceRef = &mcp.CompleteReference{Type: "ref/resource", URI: "workspace://{slug}"}
	triageRef    = &mcp.CompleteReference{Type: "ref/prompt", Name: "triage"}
	standupRef   = &mcp.CompleteReference{Type: "ref/prompt", Name: "standup"}
)

func completions(t *testing.T, cs *mcp.ClientSession, ref *mcp.CompleteReference, arg, value string) ([]string, bool) {
	t.Helper()
	res, err := complete(cs, ref, arg, value)
	if err != nil {
		t.Fatalf("complete %s%s %s=%q: %v", ref.Name, ref.URI, arg, value, err)
	}
	if res.Completion.Values == nil {
		t.Fatalf("complete %s%s %s=%q: values is null, want a list (clients refuse null)", ref.Name, ref.URI, arg, value)
	}
	return res.Completion.Values, res.Completion.HasMore
}

// Workspace slugs and ticket ids complete by prefix in the templates and
// the prompts' arguments; a hidden workspace and its tickets are never
// offered to AI, exactly as if they did not exist.
func TestCompletion(t *testing.T) {
	onStoresAndRevisions(t, func(t *testing.T, e *env, cs *mcp.ClientSession) {
		seedPolicyTickets(t, e) // reference-1 (read only) and private-1 (hidden)
		s := seedAs(t, e, board.WithPrincipal(t.Context(), agent))
		for i := range 12 {
			s.create(board.CreateTicketInput{Workspace: "inbox", NewTicket: board.NewTicket{Title: fmt.Sprintf("ticket %d", i+1)}})
		}

		for _, c := range []struct {
			ref         *mcp.CompleteReference
			arg, prefix string
			want        []string
		}{
			{workspaceRef, "slug", "", []string{"inbox", "reference"}},
			{workspaceRef, "slug", "in", []string{"inbox"}},
			{workspaceRef, "slug", "pri", []string{}},
			{triageRef, "workspace", "re", []string{"reference"}},
			{standupRef, "workspace", "p", []string{}},
			{standupRef, "since", "ye", []string{"yesterday"}},
			{ticketRef, "id", "private-", []string{}},
			{ticketRef, "id", "private-1", []string{}},
			{ticketRef, "id", "reference-", []string{"reference-1"}},
			{ticketRef, "id", "inbox-1", []string{"inbox-1", "inbox-12", "inbox-11", "inbox-10"}},
			{ticketRef, "id", "inbox-7", []string{"inbox-7"}},
			{ticketRef, "id", "inbox-99", []string{}},
		} {
			got, more := completions(t, cs, c.ref, c.arg, c.prefix)
			if !slices.Equal(got, c.want) || more {
				t.Errorf("complete %s%s %s=%q = %q (hasMore %v), want %q", c.ref.Name, c.ref.URI, c.arg, c.prefix, got, more, c.want)
			}
		}
		// Nothing typed yet: the recently changed tickets, none hidden.
		got, _ := completions(t, cs, ticketRef, "id", "")
		if !slices.Contains(got, "inbox-12") || !slices.Contains(got, "reference-1") || slices.Contains(got, "private-1") {
			t.Errorf("complete ticket id \"\" = %q, want the recent tickets of inbox and reference, not private-1", got)
		}
		// "inb" is the start of one workspace: its tickets.
		if got, _ := completions(t, cs, ticketRef, "id", "inb"); len(got) != 12 {
			t.Errorf("complete ticket id \"inb\" = %q, want inbox's 12 tickets", got)
		}

		// What is not completed is refused, saying what is.
		_, err := complete(cs, &mcp.CompleteReference{Type: "ref/prompt", Name: "nosuch"}, "workspace", "")
		if e := rpcErr(t, "complete nosuch", err); e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "ticket://{id}") {
			t.Errorf("complete an unknown prompt: %d %q, want invalid params naming what completes", e.Code, e.Message)
		}
	})
}

// A person sees the hidden workspace, and its tickets complete.
func TestCompletionForAPerson(t *testing.T) {
	person := board.Principal{Author: "human:alice", Role: board.RoleAdmin, Source: board.SourceMCP}
	onEachStore(t, envOptions{principal: person}, func(t *testing.T, e *env) {
		seedPolicyTickets(t, e)
		cs := connect(t, e.URL, modernVersion, nil)
		if got, _ := completions(t, cs, workspaceRef, "slug", "p"); !slices.Equal(got, []string{"private"}) {
			t.Errorf("a person completes \"p\" to %q, want [private]", got)
		}
		if got, _ := completions(t, cs, ticketRef, "id", "private-"); !slices.Equal(got, []string{"private-1"}) {
			t.Errorf("a person completes \"private-\" to %q, want [private-1]", got)
		}
	})
}

// An answer holds at most 100 values and says when there are more.
func TestCompletionIsBounded(t *testing.T) {
	onEachStore(t, envOptions{}, func(t *testing.T, e *env) {
		rows := make([]board.ImportRow, 130)
		for i := range rows {
			rows[i] = board.ImportRow{NewTicket: board.NewTicket{Title: fmt.Sprintf("row %d", i+1)}}
		}
		if _, err := e.Svc.ImportTickets(board.WithPrincipal(t.Context(), agent), board.ImportTicketsInput{RequestID: "many", Workspace: "inbox", Tickets: rows}); err != nil {
			t.Fatal(err)
		}
		cs := connect(t, e.URL, modernVersion, nil)
		got, more := completions(t, cs, ticketRef, "id", "inbox-")
		if len(got) != 100 || !more {
			t.Errorf("complete \"inbox-\" with 130 tickets: %d values, hasMore %v; want 100 and true", len(got), more)
		}
		if !slices.Contains(got, "inbox-130") {
			t.Errorf("complete \"inbox-\" lacks the newest ticket inbox-130: %q", got)
		}
		// A ticket older than the newest page, typed whole, is offered.
		if got, _ := completions(t, cs, ticketRef, "id", "inbox-3"); !slices.Contains(got, "inbox-3") {
			t.Errorf("complete \"inbox-3\" = %q, want inbox-3 among them", got)
		}
	})
}
