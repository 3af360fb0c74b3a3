package dynamo_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
)

// TestMixedConcurrentWrites: one process (one MCP server) takes creates in
// two workspaces, updates of different tickets, replays and refused writes
// at once, with and without the conflict model. Every acknowledged write
// must be there afterwards. Against moto
// this needs SerializeWrites (as Connect sets for a named endpoint):
// there a refused transaction restores a snapshot of the whole table and
// can undo concurrent writes to other items.
func TestMixedConcurrentWrites(t *testing.T) {
	for _, v := range conflictVariants() {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			s := v.open(t)
			svc := newService(t, s)
			ai := aiCtx(t)
			human := board.WithPrincipal(context.Background(), board.Principal{Author: "human", Source: board.SourceWeb})
			const n = 8
			for i := range n {
				mustCreate(t, svc, fmt.Sprintf("seed-%d", i), "to update")
			}
			errs := make([]error, 5*n)
			storetest.Together(5*n, func(i int) {
				k, j := i/n, i%n
				var err error
				switch k {
				case 0: // new tickets in inbox
					_, err = svc.CreateTicket(ai, board.CreateTicketInput{RequestID: fmt.Sprintf("new-%d", j), Workspace: "inbox", NewTicket: board.NewTicket{Title: "new"}})
				case 1: // new tickets in reference, by a person
					_, err = svc.CreateTicket(human, board.CreateTicketInput{RequestID: fmt.Sprintf("ref-%d", j), Workspace: "reference", NewTicket: board.NewTicket{Title: "ref"}})
				case 2: // updates of different tickets
					title := fmt.Sprintf("updated %d", j)
					_, err = svc.UpdateTicket(ai, board.UpdateTicketInput{RequestID: fmt.Sprintf("up-%d", j), ID: fmt.Sprintf("inbox-%d", j+1), Title: &title})
				case 3: // replays: refused transactions
					var res board.TicketResult
					res, err = svc.CreateTicket(ai, board.CreateTicketInput{RequestID: fmt.Sprintf("seed-%d", j), Workspace: "inbox", NewTicket: board.NewTicket{Title: "to update"}})
					if err == nil && !res.Replayed {
						err = fmt.Errorf("seed-%d was not replayed", j)
					}
				case 4: // refused by policy: read_only for AI
					_, err = svc.CreateTicket(ai, board.CreateTicketInput{RequestID: fmt.Sprintf("denied-%d", j), Workspace: "reference", NewTicket: board.NewTicket{Title: "no"}})
					if board.ErrorCode(err) == board.CodeForbidden {
						err = nil
					} else if err == nil {
						err = fmt.Errorf("denied-%d was written", j)
					}
				}
				errs[i] = err
			})
			for i, err := range errs {
				if err != nil {
					t.Errorf("call %d: %v", i, err)
				}
			}
			if got := len(ticketIDs(t, svc)); got != 2*n {
				t.Errorf("inbox has %d tickets, want %d", got, 2*n)
			}
			refs, err := svc.ListTickets(human, board.ListTicketsInput{Workspace: "reference", Limit: 100})
			if err != nil || len(refs.Tickets) != n {
				t.Errorf("reference has %d tickets (%v), want %d", len(refs.Tickets), err, n)
			}
			for j := range n {
				d, err := svc.GetTicket(ai, board.TicketIDInput{ID: fmt.Sprintf("inbox-%d", j+1)})
				if err != nil || d.Ticket.Title != fmt.Sprintf("updated %d", j) || d.Ticket.Version != 2 {
					t.Errorf("inbox-%d after its update: %q v%d %v", j+1, d.Ticket.Title, d.Ticket.Version, err)
				}
			}
			sum, err := svc.GetWorkspaceSummary(ai, board.WorkspaceInput{Workspace: "inbox"})
			if err != nil || sum.Counts[board.StatusCandidate] != 2*n {
				t.Errorf("inbox counts %v (%v), want %d candidates", sum.Counts, err, 2*n)
			}
			for _, id := range []string{"new-0", "ref-0", "up-0"} {
				p := board.Principal{Author: "ai:test"}
				if id == "ref-0" {
					p.Author = "human"
				}
				got, err := svc.FindRequest(board.WithPrincipal(context.Background(), p), board.FindRequestInput{RequestID: id})
				if err != nil || got.Status != "done" {
					t.Errorf("find_request %s: %+v %v", id, got, err)
				}
			}
		})
	}
}
