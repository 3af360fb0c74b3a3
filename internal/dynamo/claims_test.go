package dynamo_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
)

// claim_next reads the claimable index from its start: the most urgent
// free ticket comes first however many older ones the status holds, a
// held ticket is skipped, and the read examines a few items, not the
// status's tickets.
func TestClaimNextReadsTheClaimableIndex(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			e := ep.newEndpoint(t)
			counter := &dynamo.RequestCounter{}
			store := openStore(t, e, counter, dynamo.Config{SerializeWrites: ep.name == "moto"})
			now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
			svc, err := board.NewService(board.Config{Store: store, BaseURL: "https://board.test", Now: func() time.Time { return now }})
			if err != nil {
				t.Fatal(err)
			}
			person := board.WithPrincipal(context.Background(), board.Principal{Author: "human:alice", Source: board.SourceWeb})
			const old = 120
			rows := make([]board.ImportRow, old)
			for i := range rows {
				rows[i] = board.ImportRow{NewTicket: board.NewTicket{Title: fmt.Sprint("old ", i), Priority: board.PriorityLow}}
			}
			if _, err := svc.ImportTickets(person, board.ImportTicketsInput{RequestID: "old", Workspace: "inbox", Tickets: rows}); err != nil {
				t.Fatal(err)
			}
			for _, p := range []board.Priority{board.PriorityUrgent, board.PriorityUrgent} {
				if _, err := svc.CreateTicket(person, board.CreateTicketInput{RequestID: fmt.Sprint("new-", p, now.UnixNano()), Workspace: "inbox", NewTicket: board.NewTicket{Title: "new", Priority: p}}); err != nil {
					t.Fatal(err)
				}
				now = now.Add(time.Millisecond)
			}
			agent := board.WithPrincipal(context.Background(), board.Principal{Author: "ai:claude", Source: board.SourceMCP})
			held := fmt.Sprintf("inbox-%d", old+1)
			if _, err := svc.ClaimTicket(agent, board.ClaimTicketInput{RequestID: "hold", ID: held}); err != nil {
				t.Fatal(err)
			}
			counter.Reset()
			got, err := svc.ClaimNext(agent, board.ClaimNextInput{RequestID: "next", Workspace: "inbox"})
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("inbox-%d", old+2); got.Ticket == nil || got.Ticket.ID != want {
				t.Fatalf("claim_next: %+v, want %s (urgent, the other urgent one is held)", got.Ticket, want)
			}
			if n := counter.ItemsRead(); n > 40 {
				t.Errorf("claim_next read %d items, want a few (the index's head), not the status's %d tickets", n, old)
			}
		})
	}
}
