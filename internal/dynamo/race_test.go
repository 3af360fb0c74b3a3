package dynamo_test

import (
	"fmt"
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
		t.Errorf("tickets after the race: %v, want exactly [inbox-1]", ids)
	}
	if n := inboxCandidates(t, svc); n != 1 {
		t.Errorf("candidate count after the race: %d, want 1", n)
	}
}

// TestConcurrentIdenticalCreates: 50 identical create_ticket calls at once
// through one service → one ticket, 49 replays.
func TestConcurrentIdenticalCreates(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			svc := newService(t, openStore(t, ep.newEndpoint(t), nil, dynamo.Config{}))
			const n = 50
			results := make([]board.TicketResult, n)
			errs := make([]error, n)
			in := board.CreateTicketInput{RequestID: "same-intent", Workspace: "inbox", Title: "one ticket, please", Tags: []string{"race"}}
			storetest.Together(n, func(i int) { results[i], errs[i] = svc.CreateTicket(aiCtx(t), in) })
			checkOneTicket(t, svc, results, errs)
		})
	}
}

// TestConcurrentCreatesAcrossInstances: the same 50 calls spread over five
// store instances (five Lambda instances) on one table, so the races reach
// DynamoDB itself: the request record's condition and the counter's.
// moto is left out: it does not isolate concurrent transactions (it applies
// one and undoes it by restoring a snapshot of the whole table), which
// DynamoDB and minidyn (one request at a time) do.
func TestConcurrentCreatesAcrossInstances(t *testing.T) {
	t.Parallel()
	ep := minidyn(t)
	table := tableName()
	const instances, n = 5, 50
	svcs := make([]*board.Service, instances)
	for i := range svcs {
		svcs[i] = newService(t, openStore(t, ep, nil, dynamo.Config{Table: table}))
	}
	t.Run("identical calls", func(t *testing.T) {
		results := make([]board.TicketResult, n)
		errs := make([]error, n)
		in := board.CreateTicketInput{RequestID: "same-intent", Workspace: "inbox", Title: "one ticket, please"}
		storetest.Together(n, func(i int) { results[i], errs[i] = svcs[i%instances].CreateTicket(aiCtx(t), in) })
		checkOneTicket(t, svcs[0], results, errs)
	})
	t.Run("distinct calls", func(t *testing.T) {
		results := make([]board.TicketResult, n)
		errs := make([]error, n)
		storetest.Together(n, func(i int) {
			in := board.CreateTicketInput{RequestID: fmt.Sprintf("intent-%02d", i), Workspace: "inbox", Title: "racer"}
			results[i], errs[i] = svcs[i%instances].CreateTicket(aiCtx(t), in)
		})
		seen := map[string]bool{}
		for i, err := range errs {
			if err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
			if seen[results[i].Ticket.ID] {
				t.Errorf("two calls got %s", results[i].Ticket.ID)
			}
			seen[results[i].Ticket.ID] = true
		}
		for num := 2; num <= n+1; num++ { // inbox-1 is the previous subtest's
			if !seen[fmt.Sprintf("inbox-%d", num)] {
				t.Errorf("no call got inbox-%d: the numbers have a gap", num)
			}
		}
		if got := len(ticketIDs(t, svcs[0])); got != n+1 {
			t.Errorf("%d tickets, want %d", got, n+1)
		}
	})
}

// TestStaleInstance: an instance whose cached counter is behind (another
// instance created since) builds the ticket again with the right number;
// a retry of a call another instance committed is a replay. Sequential, so
// it runs against every endpoint.
func TestStaleInstance(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			e := ep.newEndpoint(t)
			table := tableName()
			a := newService(t, openStore(t, e, nil, dynamo.Config{Table: table}))
			b := newService(t, openStore(t, e, nil, dynamo.Config{Table: table}))
			mustCreate(t, a, "a1", "by a")
			mustCreate(t, a, "a2", "by a")
			// b's counter still says 1.
			if got := mustCreate(t, b, "b1", "by b"); got.Ticket.ID != "inbox-3" || got.Replayed {
				t.Errorf("stale instance created %s replayed=%v, want inbox-3", got.Ticket.ID, got.Replayed)
			}
			// a retries a call b committed: a replay, with b's answer.
			if got := mustCreate(t, a, "b1", "by b"); got.Ticket.ID != "inbox-3" || !got.Replayed {
				t.Errorf("retry on another instance: %s replayed=%v, want inbox-3 replayed", got.Ticket.ID, got.Replayed)
			}
			// a's counter is stale now and its next create conflicts once.
			if got := mustCreate(t, a, "a3", "by a"); got.Ticket.ID != "inbox-4" {
				t.Errorf("a's next create: %s, want inbox-4", got.Ticket.ID)
			}
			if ids := ticketIDs(t, b); !slices.Equal(ids, []string{"inbox-4", "inbox-3", "inbox-2", "inbox-1"}) {
				t.Errorf("tickets: %v", ids)
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
