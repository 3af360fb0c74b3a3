package dynamo_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamotest"
)

// TestHotTicketsNeverEndInternal: many instances add notes to two tickets,
// move them and change their titles at once, while each transaction holds
// its items far longer than on DynamoDB (a slow, loaded endpoint), with a
// budget of a few holds. A write that met another on its ticket reads the
// ticket again before it is sent again: when the other committed, the use
// case recomputes instead of the store resending a write that can only be
// refused, so the ticket is held only by writes that can commit and every
// call succeeds on its first answer; none ends as an internal error. Every
// note is there exactly once, and each call's request_id answers a replay.
// Before writes were judged afresh, stale resends held the tickets for
// whole turns and calls ran out of budget as internal errors.
func TestHotTicketsNeverEndInternal(t *testing.T) {
	t.Parallel()
	ep := minidyn(t)
	const instances, calls, tickets = 8, 4, 2
	hold := 100 * time.Millisecond
	c := &conflicted{ep: ep, in: &dynamotest.Injector{Hold: hold}, table: tableName()}
	seed := newService(t, openStore(t, ep, nil, dynamo.Config{Table: c.table}))
	for i := range tickets {
		mustCreate(t, seed, fmt.Sprintf("seed-%d", i), "hot")
	}
	svcs := make([]*board.Service, instances)
	for i := range svcs {
		// A budget of a few holds: long enough for a write that the others
		// let through, short enough that one starved by stale resends ends.
		svcs[i] = loggedService(t, c.open(t, dynamo.Config{CounterRaceBudget: 10 * hold}))
	}
	statuses := []board.Status{board.StatusDoing, board.StatusWaitingHuman, board.StatusWaitingAI}
	type call struct {
		rid, ticket string
		kind        int // 0 move, 1 note, 2 title
	}
	var all []call
	for i := range instances {
		for n := range calls {
			all = append(all, call{fmt.Sprintf("i%d-c%d", i, n), fmt.Sprintf("inbox-%d", 1+(i+n)%tickets), (i + n) % 3})
		}
	}
	do := func(svc *board.Service, c call) (bool, error) {
		switch c.kind {
		case 0:
			r, err := svc.MoveTicket(aiCtx(t), board.MoveTicketInput{RequestID: c.rid, ID: c.ticket, Status: statuses[len(c.rid)%len(statuses)]})
			return r.Replayed, err
		case 1:
			r, err := svc.AddNote(aiCtx(t), board.AddNoteInput{RequestID: c.rid, ID: c.ticket, Body: "note " + c.rid})
			return r.Replayed, err
		}
		title := "title " + c.rid
		r, err := svc.UpdateTicket(aiCtx(t), board.UpdateTicketInput{RequestID: c.rid, ID: c.ticket, Title: &title})
		return r.Replayed, err
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(all))
	for i, svc := range svcs {
		wg.Go(func() {
			for _, c := range all[i*calls : (i+1)*calls] {
				if _, err := do(svc, c); err != nil {
					errs <- fmt.Errorf("%s on %s: %w (code %s)", c.rid, c.ticket, err, board.ErrorCode(err))
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	bodies := map[string]int{}
	for i := range tickets {
		d, err := seed.GetTicket(aiCtx(t), board.TicketIDInput{ID: fmt.Sprintf("inbox-%d", 1+i)})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range d.Notes {
			bodies[n.Body]++
		}
	}
	for _, c := range all {
		if c.kind == 1 && bodies["note "+c.rid] != 1 {
			t.Errorf("note of %s is on its ticket %d times, want once", c.rid, bodies["note "+c.rid])
		}
		// The write is recorded once: its request_id answers a replay.
		if replayed, err := do(svcs[0], c); err != nil || !replayed {
			t.Errorf("%s again: replayed %v, %v; want the first answer", c.rid, replayed, err)
		}
	}
	notes := 0
	for _, c := range all {
		if c.kind == 1 {
			notes++
		}
	}
	if len(bodies) != notes {
		t.Errorf("%d distinct notes on the tickets, want %d", len(bodies), notes)
	}
	t.Logf("conflicts: %v", c.in.Stats().Conflicts)
}
