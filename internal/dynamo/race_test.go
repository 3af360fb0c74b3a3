package dynamo_test

import (
	"slices"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
)

// checkOneTicket: n results of one create_ticket intent name one ticket,
// exactly one of them as the first call, and the board holds only it.
func checkOneTicket(t *testing.T, svc *board.Service, results []board.TicketResult, errs []error) {
	t.Helper()
	first := 0
	for i, err := range errs {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if results[i].Ticket.ID != "inbox-1" {
			t.Errorf("call %d got %s, want inbox-1", i, results[i].Ticket.ID)
		}
		if !results[i].Replayed {
			first++
		}
	}
	if first != 1 {
		t.Errorf("%d calls were told they created the ticket, want exactly 1 (the others replayed)", first)
	}
	if ids := ticketIDs(t, svc); !slices.Equal(ids, []string{"inbox-1"}) {
		t.Errorf("tickets after the calls: %v, want exactly [inbox-1]", ids)
	}
	if n := inboxCandidates(t, svc); n != 1 {
		t.Errorf("candidate count after the calls: %d, want 1", n)
	}
}

// TestIdenticalCreatesReplayInOrder: 50 identical create_ticket calls sent
// together through one service → one ticket, 49 replays, with and without
// the conflict model. Within one
// instance the store's per-workspace lock takes them one at a time, so this
// shows that the calls after the first replay it; TestShared races them
// across instances that share no lock.
func TestIdenticalCreatesReplayInOrder(t *testing.T) {
	for _, v := range conflictVariants() {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			svc := newService(t, v.open(t))
			const n = 50
			results := make([]board.TicketResult, n)
			errs := make([]error, n)
			in := board.CreateTicketInput{RequestID: "same-intent", Workspace: "inbox", NewTicket: board.NewTicket{Title: "one ticket, please", Tags: []string{"race"}}}
			storetest.Together(n, func(i int) { results[i], errs[i] = svc.CreateTicket(aiCtx(t), in) })
			checkOneTicket(t, svc, results, errs)
		})
	}
}

// TestInstancesNumberFromTheirOwnBlocks: each instance numbers its creates
// from the block of numbers it leased (the first of ten, from 1; the next
// instance's from 11), so two instances never take the same number and
// never have to retry for one; lists stay newest first by number, which is
// not creation order across instances; a retry of a call another instance
// committed is a replay. Sequential, so it runs against every endpoint.
func TestInstancesNumberFromTheirOwnBlocks(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			e := ep.newEndpoint(t)
			table := tableName()
			a := newService(t, openStore(t, e, nil, dynamo.Config{Table: table}))
			b := newService(t, openStore(t, e, nil, dynamo.Config{Table: table}))
			mustCreate(t, a, "a1", "by a")
			mustCreate(t, a, "a2", "by a")
			if got := mustCreate(t, b, "b1", "by b"); got.Ticket.ID != "inbox-11" || got.Replayed {
				t.Errorf("the second instance created %s replayed=%v, want inbox-11 (its block starts after the first's)", got.Ticket.ID, got.Replayed)
			}
			// a retries a call b committed: a replay, with b's answer.
			if got := mustCreate(t, a, "b1", "by b"); got.Ticket.ID != "inbox-11" || !got.Replayed {
				t.Errorf("retry on another instance: %s replayed=%v, want inbox-11 replayed", got.Ticket.ID, got.Replayed)
			}
			if got := mustCreate(t, a, "a3", "by a"); got.Ticket.ID != "inbox-3" {
				t.Errorf("a's next create: %s, want inbox-3 (the next of its block)", got.Ticket.ID)
			}
			if ids := ticketIDs(t, b); !slices.Equal(ids, []string{"inbox-11", "inbox-3", "inbox-2", "inbox-1"}) {
				t.Errorf("tickets: %v, want newest number first", ids)
			}
			// An update on the other instance starts from the current version.
			title := "from a"
			if _, err := a.UpdateTicket(aiCtx(t), board.UpdateTicketInput{RequestID: "ua", ID: "inbox-1", Title: &title}); err != nil {
				t.Fatal(err)
			}
			title2 := "from b"
			up, err := b.UpdateTicket(aiCtx(t), board.UpdateTicketInput{RequestID: "ub", ID: "inbox-1", Title: &title2})
			if err != nil || up.Ticket.Version != 3 {
				t.Errorf("second update: version %d, %v; want 3", up.Ticket.Version, err)
			}
		})
	}
}
