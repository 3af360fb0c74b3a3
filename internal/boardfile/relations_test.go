package boardfile_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Relations grow puts in ops (ops-3, ops-6, ... are done; the rest open).
var grownRelations = []board.RelateInput{
	{ID: "ops-1", Kind: board.RelationBlocks, Other: "ops-2"}, // an open blocker
	{ID: "ops-3", Kind: board.RelationBlocks, Other: "ops-4"}, // a done blocker
	{ID: "ops-1", Kind: board.RelationBlocks, Other: "ops-5"},
	{ID: "ops-1", Kind: board.RelationParent, Other: "ops-7"},
	{ID: "ops-7", Kind: board.RelationParent, Other: "ops-8"},
}

// relate adds grownRelations through the service.
func relate(t *testing.T, f *fixture) {
	t.Helper()
	for i, in := range grownRelations {
		in.RequestID = fmt.Sprintf("rel-%d", i)
		if _, err := f.svc.RelateTickets(f.as("ai:alice", "human:ada", ""), in); err != nil {
			t.Fatalf("relate %+v: %v", in, err)
		}
	}
}

// sameReadiness: the moved store answers each ticket's relations and
// readiness as the source does, and claim_next hands out exactly the
// ready tickets (on DynamoDB it reads the claimable index, which the
// import keeps). It claims them: call it last.
func sameReadiness(t *testing.T, src, f *fixture) {
	t.Helper()
	ctx := src.as("human:ada", "", board.RoleAdmin)
	for i := 1; i <= grown; i++ {
		id := fmt.Sprintf("ops-%d", i)
		a, err := src.svc.GetTicket(ctx, board.TicketIDInput{ID: id})
		if err != nil {
			t.Fatal(err)
		}
		b, err := f.svc.GetTicket(ctx, board.TicketIDInput{ID: id})
		if err != nil {
			t.Fatal(err)
		}
		if !sameAnswer(a.TicketRelations, b.TicketRelations) {
			t.Errorf("%s's relations on %s: %+v, want %+v", id, f.be.Name, b.TicketRelations, a.TicketRelations)
		}
	}
	ready, err := src.svc.ListTickets(ctx, board.ListTicketsInput{Workspace: "ops", Ready: true, Status: board.StatusCandidate, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, tk := range ready.Tickets {
		want = append(want, tk.ID)
	}
	for i := 0; ; i++ {
		res, err := f.svc.ClaimNext(f.as("ai:alice", "human:ada", ""), board.ClaimNextInput{RequestID: fmt.Sprintf("next-%d", i), Workspace: "ops"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Ticket == nil {
			break
		}
		if res.Ticket.Number <= grown { // not one a check created since
			got = append(got, res.Ticket.ID)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) || slices.Contains(got, "ops-2") || !slices.Contains(got, "ops-4") {
		t.Errorf("claim_next on %s handed out %v, want the ready tickets %v", f.be.Name, got, want)
	}
}
