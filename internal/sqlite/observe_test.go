package sqlite_test

import (
	"context"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/obs"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

// A request's record counts the statements the store ran for it: one for
// the health check's ping, several for a write (which runs on the
// committer's connection, with the caller's context); none outside a
// request.
func TestStatementsAreCountedPerRequest(t *testing.T) {
	s, err := sqlite.Open(context.Background(), t.TempDir()+"/ledger.db")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ping := obs.NewRequest("ping")
	if err := s.Ping(obs.NewContext(context.Background(), ping)); err != nil {
		t.Fatal(err)
	}
	if got := ping.StoreRequests(); got != 1 {
		t.Errorf("a ping counted %d statements, want 1", got)
	}
	svc, err := board.NewService(board.Config{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	write := obs.NewRequest("write")
	ctx := obs.NewContext(board.WithPrincipal(context.Background(), board.Principal{Author: "ai:counter", Source: board.SourceMCP}), write)
	if _, err := svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: "c-1", Workspace: "inbox", NewTicket: board.NewTicket{Title: "counted"}}); err != nil {
		t.Fatal(err)
	}
	if got := write.StoreRequests(); got < 2 {
		t.Errorf("a create counted %d statements, want its writes", got)
	}
	if ping.StoreRequests() != 1 {
		t.Errorf("another request's statements were counted for the ping: %d", ping.StoreRequests())
	}
}
