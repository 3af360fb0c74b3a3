package dynamo_test

import (
	"context"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
)

// aiCtx is a call by an AI principal over MCP, as the MCP adapter makes it.
func aiCtx(t testing.TB) context.Context {
	return board.WithPrincipal(context.Background(), board.Principal{Author: "ai:test", Source: board.SourceMCP})
}

func newService(t testing.TB, s *dynamo.Store) *board.Service {
	t.Helper()
	svc, err := board.NewService(board.Config{Store: s, BaseURL: "https://board.test"})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// mustCreate creates a ticket in inbox under requestID.
func mustCreate(t testing.TB, svc *board.Service, requestID, title string) board.TicketResult {
	t.Helper()
	res, err := svc.CreateTicket(aiCtx(t), board.CreateTicketInput{RequestID: requestID, Workspace: "inbox", NewTicket: board.NewTicket{Title: title}})
	if err != nil {
		t.Fatalf("create_ticket %s: %v", requestID, err)
	}
	return res
}

// ticketIDs lists inbox through the service (and so through the store's
// listing index), newest first.
func ticketIDs(t testing.TB, svc *board.Service) []string {
	t.Helper()
	list, err := svc.ListTickets(aiCtx(t), board.ListTicketsInput{Workspace: "inbox", Limit: board.MaxLimit})
	if err != nil {
		t.Fatalf("list_tickets: %v", err)
	}
	ids := make([]string, len(list.Tickets))
	for i, tk := range list.Tickets {
		ids[i] = tk.ID
	}
	return ids
}

// inboxCandidates is the workspace's candidate count, kept by the writes.
func inboxCandidates(t testing.TB, svc *board.Service) int {
	t.Helper()
	sum, err := svc.GetWorkspaceSummary(aiCtx(t), board.WorkspaceInput{Workspace: "inbox"})
	if err != nil {
		t.Fatalf("get_workspace_summary: %v", err)
	}
	return sum.Counts[board.StatusCandidate]
}
