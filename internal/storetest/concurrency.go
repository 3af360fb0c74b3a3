package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// Races: many callers at once, released together by a gate (no sleeps).
// Run with -race.

func concurrencyTests() []contractTest {
	return []contractTest{
		{"50 creates under one key: one ticket, 49 ExistsError with its result", testRaceSameKey},
		{"50 creates under different keys: numbers 1..50, no gaps, no duplicates", testRaceNumbers},
		{"20 saves from the same Before: one wins, 19 ErrVersionConflict", testRaceSave},
		{"20 claims of one key: one owner", testRaceClaim},
	}
}

// Together runs fn(i) for i in [0, n) in n goroutines released at once by
// a gate, so the calls overlap without any sleep. Backend tests use it too.
func Together(n int, fn func(i int)) {
	gate := make(chan struct{})
	var ready, done sync.WaitGroup
	for i := range n {
		ready.Add(1)
		done.Go(func() {
			ready.Done()
			<-gate
			fn(i)
		})
	}
	ready.Wait()
	close(gate)
	done.Wait()
}

// resultTicketID reads the ticket id out of a create result.
func resultTicketID(t *testing.T, raw []byte) string {
	t.Helper()
	var r board.TicketResult
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("stored result is not the TicketResult that was built: %v: %s", err, raw)
	}
	return r.Ticket.ID
}

func testRaceSameKey(t *testing.T, f *fixture) {
	const n = 50
	now := f.now()
	calls := make([]*createCall, n)
	for i := range calls {
		calls[i] = f.newCreate("inbox", alice, "same-key", now, withTitle(fmt.Sprintf("attempt %d", i)))
	}
	recs := make([]ledger.Record, n)
	errs := make([]error, n)
	Together(n, func(i int) { recs[i], errs[i] = f.s.CreateTicket(f.ctx, calls[i].Tx) })

	winner := -1
	for i, err := range errs {
		if err == nil {
			if winner >= 0 {
				t.Errorf("CreateTicket %d and %d both succeeded under one key", winner, i)
			}
			winner = i
		}
	}
	if winner < 0 {
		t.Fatalf("no CreateTicket succeeded; errors: %v", errs)
	}
	won := recs[winner]
	wantRec := calls[winner].Tx.Request
	wantRec.Result = calls[winner].Plan().Result
	assertRecord(t, "record returned to the winner", wantRec, won)
	losers := 0
	for i, err := range errs {
		if i == winner {
			continue
		}
		var exists *ledger.ExistsError
		if !errors.As(err, &exists) {
			t.Errorf("CreateTicket %d: %v, want *ledger.ExistsError", i, err)
			continue
		}
		losers++
		assertRecord(t, fmt.Sprintf("ExistsError of CreateTicket %d", i), won, exists.Record)
	}
	if losers != n-1 {
		t.Errorf("%d of %d racing creates got ExistsError, want %d", losers, n, n-1)
	}

	want := calls[winner].Plan()
	assertTickets(t, "ListTickets after the race", []board.Ticket{want.Ticket}, f.list(everything("inbox")).Tickets)
	assertEvents(t, "ListEvents after the race", []board.Event{want.Event}, f.events("inbox", 100))
	assertRecord(t, "GetRequest after the race", won, f.request(won.Key, now))
	f.counts("inbox", map[board.Status]int{board.StatusCandidate: 1})
	if next := f.create("inbox", "after"); next.Ticket.Number != 2 {
		t.Errorf("create after the race got number %d, want 2 (no gap)", next.Ticket.Number)
	}
}

func testRaceNumbers(t *testing.T, f *fixture) {
	const n = 50
	now := f.now()
	calls := make([]*createCall, n)
	for i := range calls {
		calls[i] = f.newCreate("inbox", alice, fmt.Sprintf("key-%02d", i), now, withTitle(fmt.Sprintf("racer %d", i)))
	}
	recs := make([]ledger.Record, n)
	errs := make([]error, n)
	Together(n, func(i int) { recs[i], errs[i] = f.s.CreateTicket(f.ctx, calls[i].Tx) })

	byID := map[string]int{} // ticket id -> racer
	for i, err := range errs {
		if err != nil {
			t.Errorf("CreateTicket %d: %v (every key is distinct, all must succeed)", i, err)
			continue
		}
		id := resultTicketID(t, recs[i].Result)
		if j, dup := byID[id]; dup {
			t.Errorf("racers %d and %d were both given %s", j, i, id)
		}
		byID[id] = i
		if plan := calls[i].Plan(); plan.Ticket.ID != id {
			t.Errorf("racer %d: stored result names %s but its last Build made %s", i, id, plan.Ticket.ID)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	var want []board.Ticket
	for num := n; num >= 1; num-- {
		id := fmt.Sprintf("inbox-%d", num)
		i, ok := byID[id]
		if !ok {
			t.Errorf("no racer got %s: numbers have a gap", id)
			continue
		}
		want = append(want, calls[i].Plan().Ticket)
	}
	page := f.list(board.TicketQuery{Workspace: "inbox", Limit: board.MaxLimit})
	assertTickets(t, "ListTickets after the race", want, page.Tickets)
	if page.More {
		t.Error("ListTickets of 50 tickets with limit 100: More is true")
	}
	if got := len(f.events("inbox", 100)); got != n {
		t.Errorf("ListEvents has %d events after %d creates", got, n)
	}
	f.counts("inbox", map[board.Status]int{board.StatusCandidate: n})
	if next := f.create("inbox", "after"); next.Ticket.Number != n+1 {
		t.Errorf("create after the race got number %d, want %d", next.Ticket.Number, n+1)
	}
}

func testRaceSave(t *testing.T, f *fixture) {
	const n = 20
	plan := f.create("inbox", "c")
	txs := make([]board.SaveTx, n)
	for i := range txs {
		txs[i] = f.retitle(plan.Ticket, fmt.Sprintf("u-%02d", i), fmt.Sprintf("winner %d", i))
	}
	errs := make([]error, n)
	Together(n, func(i int) { _, errs[i] = f.s.SaveTicket(f.ctx, txs[i]) })

	winner := -1
	for i, err := range errs {
		switch {
		case err == nil:
			if winner >= 0 {
				t.Errorf("SaveTicket %d and %d both succeeded from the same Before", winner, i)
			}
			winner = i
		case !errors.Is(err, board.ErrVersionConflict):
			t.Errorf("SaveTicket %d: %v, want ErrVersionConflict", i, err)
		}
	}
	if winner < 0 {
		t.Fatalf("no SaveTicket succeeded; errors: %v", errs)
	}
	d, _ := f.detail(plan.Ticket.ID)
	assertTicket(t, "ticket after the race", *txs[winner].After, d.Ticket)
	assertEvents(t, "history after the race", []board.Event{plan.Event, *txs[winner].Event}, d.History)
	for i, tx := range txs {
		if i == winner {
			assertRecord(t, "winner's record", tx.Request, f.request(tx.Request.Key, tx.Request.CreatedAt))
		} else {
			f.noRequest(fmt.Sprintf("loser %d", i), tx.Request.Key, tx.Request.CreatedAt)
		}
	}
}

func testRaceClaim(t *testing.T, f *fixture) {
	const n = 20
	recs := make([]ledger.Record, n)
	for i := range recs {
		recs[i] = running(alice, "job", fmt.Sprintf("worker-%02d", i), T0, T0.Add(time.Minute))
	}
	errs := make([]error, n)
	Together(n, func(i int) { errs[i] = f.s.ClaimRequest(f.ctx, recs[i], T0) })

	winner := -1
	for i, err := range errs {
		if err == nil {
			if winner >= 0 {
				t.Errorf("ClaimRequest %d and %d both succeeded", winner, i)
			}
			winner = i
		}
	}
	if winner < 0 {
		t.Fatalf("no ClaimRequest succeeded; errors: %v", errs)
	}
	for i, err := range errs {
		if i != winner {
			assertExists(t, fmt.Sprintf("ClaimRequest %d", i), err, recs[winner])
		}
	}
	assertRecord(t, "GetRequest after the race", recs[winner], f.request(recs[winner].Key, T0))
}
