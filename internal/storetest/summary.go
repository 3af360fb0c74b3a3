package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// ReadSummary: counts, the newest waiting_ai tickets, the open tickets due
// soonest and the newest events, each a bounded read.

func summaryTests() []contractTest {
	return []contractTest{
		{"counts, newest waiting_ai first, newest events first, each list limited", testSummaryLists},
		{"due_soon: open tickets only, earliest due first, past 100 newer done tickets with due dates", testSummaryDueSoon},
		{"due_soon follows moves and due changes", testSummaryDueFollows},
		{"each ticket list stops at MaxBytes of text, keeping at least one", testSummaryMaxBytes},
		{"a policy the caller may not read is refused; an absent workspace is ErrNotFound", testSummaryPolicy},
	}
}

func (f *fixture) summary(workspace, dueBy string) board.SummaryRead {
	f.t.Helper()
	r, err := f.s.ReadSummary(f.ctx, board.SummaryQuery{Workspace: workspace, Waiting: 20, DueBy: dueBy, Due: 20, Events: 20})
	if err != nil {
		f.t.Fatalf("ReadSummary(%s, due by %s): %v", workspace, dueBy, err)
	}
	return r
}

func testSummaryLists(t *testing.T, f *fixture) {
	var events []board.Event
	for i, st := range []board.Status{board.StatusWaitingAI, board.StatusCandidate, board.StatusWaitingAI, board.StatusDone, board.StatusWaitingAI} {
		events = append([]board.Event{f.create("inbox", "c"+itoa(i), withStatus(st)).Event}, events...)
	}
	f.create("reference", "elsewhere", withStatus(board.StatusWaitingAI))
	r, err := f.s.ReadSummary(f.ctx, board.SummaryQuery{Workspace: "inbox", Waiting: 2, DueBy: "2026-12-31", Due: 20, Events: 3})
	if err != nil {
		t.Fatal(err)
	}
	if r.Workspace.Slug != "inbox" || r.Workspace.AIPolicy != board.PolicyReadWrite {
		t.Errorf("ReadSummary workspace %+v", r.Workspace)
	}
	assertCounts(t, "ReadSummary", map[board.Status]int{board.StatusWaitingAI: 3, board.StatusCandidate: 1, board.StatusDone: 1}, r.Workspace.Counts)
	if got, want := ticketIDs(r.WaitingAI), ids("inbox", 5, 3); !slices.Equal(got, want) {
		t.Errorf("waiting_ai (2 of 3, newest first): %v, want %v", got, want)
	}
	assertEvents(t, "newest 3 events", events[:3], r.Events)
	if len(r.DueSoon) != 0 {
		t.Errorf("due_soon without due dates: %v", ticketIDs(r.DueSoon))
	}
}

func testSummaryDueSoon(t *testing.T, f *fixture) {
	// Old open tickets due soon (one overdue), an open one due later, and an
	// open one without a due date.
	f.create("inbox", "o1", withDue("2026-12-05"))                                       // 1
	f.create("inbox", "o2", withDue("2026-11-20"), withStatus(board.StatusWaitingAI))    // 2 (overdue)
	f.create("inbox", "o3", withDue("2026-12-09"))                                       // 3 (after DueBy)
	f.create("inbox", "o4")                                                              // 4
	f.create("inbox", "o5", withDue("2026-12-05"), withStatus(board.StatusHold))         // 5
	f.create("inbox", "o6", withDue("2026-12-07"), withStatus(board.StatusDoing))        // 6 (due on DueBy)
	f.create("inbox", "o7", withDue("2026-12-02"), withStatus(board.StatusWaitingHuman)) // 7
	// Then more than 100 newer done tickets, all due within the week.
	for i := range 105 {
		f.create("inbox", fmt.Sprintf("done-%d", i), withDue(fmt.Sprintf("2026-12-0%d", 1+i%7)), withStatus(board.StatusDone))
	}
	f.create("reference", "elsewhere", withDue("2026-12-01"))
	r := f.summary("inbox", "2026-12-07")
	// Earliest due first; the same date by number.
	if got, want := ticketIDs(r.DueSoon), ids("inbox", 2, 7, 1, 5, 6); !slices.Equal(got, want) {
		t.Errorf("due_soon: %v, want %v", got, want)
	}
	r, err := f.s.ReadSummary(f.ctx, board.SummaryQuery{Workspace: "inbox", Waiting: 1, DueBy: "2026-12-07", Due: 2, Events: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ticketIDs(r.DueSoon), ids("inbox", 2, 7); !slices.Equal(got, want) {
		t.Errorf("due_soon limited to 2: %v, want %v", got, want)
	}
	if got := ticketIDs(f.summary("inbox", "2026-11-19").DueSoon); len(got) != 0 {
		t.Errorf("due_soon due by 2026-11-19: %v, want none", got)
	}
}

func testSummaryDueFollows(t *testing.T, f *fixture) {
	a := f.create("inbox", "a", withDue("2026-12-03"))
	b := f.create("inbox", "b", withDue("2026-12-01"), withStatus(board.StatusDone))
	c := f.create("inbox", "c")
	// a is done now, b open again, c gets a due date.
	f.save(f.moveTx(a.Ticket, "a-done", board.StatusDone, ""))
	f.save(f.moveTx(b.Ticket, "b-open", board.StatusDoing, ""))
	f.save(f.updateTx(c.Ticket, alice, "c-due", f.now(), []string{"due"}, withDue("2026-12-02")))
	if got, want := ticketIDs(f.summary("inbox", "2026-12-07").DueSoon), ids("inbox", 2, 3); !slices.Equal(got, want) {
		t.Errorf("due_soon after the moves: %v, want %v", got, want)
	}
}

func testSummaryMaxBytes(t *testing.T, f *fixture) {
	body := strings.Repeat("x", 1000)
	for i := range 4 {
		f.create("inbox", "w"+itoa(i), withTitle("w"), withBody(body), withStatus(board.StatusWaitingAI), withDue("2026-12-01"))
	}
	for _, c := range []struct {
		maxBytes, want int
	}{{2500, 2}, {2002, 2}, {2001, 1}, {10, 1}, {0, 4}} {
		r, err := f.s.ReadSummary(f.ctx, board.SummaryQuery{Workspace: "inbox", Waiting: 20, DueBy: "2026-12-07", Due: 20, Events: 20, MaxBytes: c.maxBytes})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.WaitingAI) != c.want || len(r.DueSoon) != c.want {
			t.Errorf("MaxBytes %d over tickets of 1001 bytes: %d waiting_ai, %d due_soon; want %d of each", c.maxBytes, len(r.WaitingAI), len(r.DueSoon), c.want)
		}
	}
}

func testSummaryPolicy(t *testing.T, f *fixture) {
	f.create("private", "p", withStatus(board.StatusWaitingAI))
	_, err := f.s.ReadSummary(f.ctx, board.SummaryQuery{Workspace: "private", Waiting: 20, DueBy: "2026-12-07", Due: 20, Events: 20,
		Readable: []board.AIPolicy{board.PolicyReadWrite, board.PolicyReadOnly}})
	assertPolicyError(t, "ReadSummary of a hidden workspace", err, board.PolicyHidden)
	if r := f.summary("private", "2026-12-07"); len(r.WaitingAI) != 1 {
		t.Errorf("ReadSummary(private) without a policy bound: %d waiting_ai, want 1", len(r.WaitingAI))
	}
	_, err = f.s.ReadSummary(f.ctx, board.SummaryQuery{Workspace: "nope", Waiting: 20, DueBy: "2026-12-07", Due: 20, Events: 20})
	assertIs(t, "ReadSummary(nope)", err, board.ErrNotFound)
}
