package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// ListTickets: order, filters, paging and the policy it returns.

func listTicketsTests() []contractTest {
	return []contractTest{
		{"newest first by number, every field intact", testListOrder},
		{"paging with Limit and Before, More exact at boundaries", testListPaging},
		{"filter by status", testListStatus},
		{"filter by owner", testListOwner},
		{"filter by tag matches whole tags only", testListTag},
		{"filters combine, and paging counts matches only", testListFilteredPaging},
		{"unknown workspace is ErrNotFound; empty ones list nothing", testListWorkspaces},
		{"a page carries the kept counts, after the store's own writes too", testListCounts},
	}
}

// pageCase is one ListTickets call and the page it must return.
type pageCase struct {
	q    board.TicketQuery
	want []string
	more bool
}

func (f *fixture) checkPages(cases []pageCase) {
	f.t.Helper()
	for _, c := range cases {
		got, more := f.listIDs(c.q)
		if !slices.Equal(got, c.want) || more != c.more {
			f.t.Errorf("ListTickets(%s): got %v more=%v, want %v more=%v", describeQuery(c.q), got, more, c.want, c.more)
		}
	}
}

func describeQuery(q board.TicketQuery) string {
	s := fmt.Sprintf("workspace=%s limit=%d", q.Workspace, q.Limit)
	if q.Before != 0 {
		s += fmt.Sprintf(" before=%d", q.Before)
	}
	for _, f := range [][2]string{{"status", string(q.Status)}, {"owner", q.Owner}, {"tag", q.Tag}, {"query", q.Query}} {
		if f[1] != "" {
			s += fmt.Sprintf(" %s=%q", f[0], f[1])
		}
	}
	return s
}

func testListOrder(t *testing.T, f *fixture) {
	var want []board.Ticket
	for i := range 5 {
		plan := f.create("inbox", "c"+itoa(i), withTags("n"+itoa(i)), withOwner("human"), withDue("2026-12-0"+itoa(i+1)),
			withLinks(board.Link{Kind: "task", Ref: "t-" + itoa(i), Title: "Task"}))
		want = append([]board.Ticket{plan.Ticket}, want...)
	}
	f.create("reference", "other") // not listed in inbox
	page := f.list(board.TicketQuery{Workspace: "inbox", Limit: 10})
	assertTickets(t, "ListTickets(inbox)", want, page.Tickets)
	if page.More {
		t.Error("ListTickets of 5 tickets with limit 10: More is true")
	}
	if page.Policy != board.PolicyReadWrite {
		t.Errorf("ListTickets(inbox).Policy = %q, want read_write", page.Policy)
	}
	// A ticket changed later keeps its place: order is by number, not by time.
	f.save(f.retitle(want[4], "touch", "touched"))
	got, _ := f.listIDs(board.TicketQuery{Workspace: "inbox", Limit: 10})
	if w := ids("inbox", 5, 4, 3, 2, 1); !slices.Equal(got, w) {
		t.Errorf("after updating inbox-1: ListTickets gives %v, want %v", got, w)
	}
}

func testListPaging(t *testing.T, f *fixture) {
	for i := range 5 {
		f.create("inbox", "c"+itoa(i))
	}
	q := func(limit int, before int64) board.TicketQuery {
		return board.TicketQuery{Workspace: "inbox", Limit: limit, Before: before}
	}
	f.checkPages([]pageCase{
		{q(5, 0), ids("inbox", 5, 4, 3, 2, 1), false},
		{q(6, 0), ids("inbox", 5, 4, 3, 2, 1), false},
		{q(4, 0), ids("inbox", 5, 4, 3, 2), true},
		{q(2, 0), ids("inbox", 5, 4), true},
		{q(2, 4), ids("inbox", 3, 2), true},
		{q(2, 2), ids("inbox", 1), false},
		{q(1, 2), ids("inbox", 1), false},
		{q(1, 1), nil, false},
		{q(3, 3), ids("inbox", 2, 1), false},
		{q(2, 3), ids("inbox", 2, 1), false},
		{q(1, 0), ids("inbox", 5), true},
		{q(10, 6), ids("inbox", 5, 4, 3, 2, 1), false},
		{q(10, 100), ids("inbox", 5, 4, 3, 2, 1), false},
	})
}

func testListStatus(t *testing.T, f *fixture) {
	statuses := []board.Status{board.StatusCandidate, board.StatusDoing, board.StatusDone, board.StatusDoing, board.StatusHold, board.StatusCandidate}
	for i, st := range statuses {
		f.create("inbox", "c"+itoa(i), withStatus(st))
	}
	q := func(st board.Status) board.TicketQuery {
		return board.TicketQuery{Workspace: "inbox", Status: st, Limit: 10}
	}
	f.checkPages([]pageCase{
		{q(board.StatusCandidate), ids("inbox", 6, 1), false},
		{q(board.StatusDoing), ids("inbox", 4, 2), false},
		{q(board.StatusDone), ids("inbox", 3), false},
		{q(board.StatusHold), ids("inbox", 5), false},
		{q(board.StatusWaitingAI), nil, false},
	})
	// A move is seen by the filter.
	d, _ := f.detail("inbox-1")
	f.save(f.moveTx(d.Ticket, "mv", board.StatusWaitingAI, ""))
	f.checkPages([]pageCase{
		{q(board.StatusCandidate), ids("inbox", 6), false},
		{q(board.StatusWaitingAI), ids("inbox", 1), false},
	})
}

func testListOwner(t *testing.T, f *fixture) {
	f.create("inbox", "c1", withOwner("human"))
	f.create("inbox", "c2", withOwner("ai:claude"))
	f.create("inbox", "c3")
	f.create("inbox", "c4", withOwner("ai:claude"))
	f.create("inbox", "c5", withOwner("ai:claude-2"))
	q := func(owner string) board.TicketQuery {
		return board.TicketQuery{Workspace: "inbox", Owner: owner, Limit: 10}
	}
	f.checkPages([]pageCase{
		{q("ai:claude"), ids("inbox", 4, 2), false},
		{q("human"), ids("inbox", 1), false},
		{q("ai:nobody"), nil, false},
		{q("ai:claud"), nil, false},
	})
}

func testListTag(t *testing.T, f *fixture) {
	f.create("inbox", "c1", withTags("bug", "ui"))
	f.create("inbox", "c2", withTags("bugfix"))
	f.create("inbox", "c3", withTags("ui", "bug"))
	f.create("inbox", "c4", withTags("abc", "x.y"))
	f.create("inbox", "c5", withTags("debug"))
	f.create("inbox", "c6")
	q := func(tag string) board.TicketQuery { return board.TicketQuery{Workspace: "inbox", Tag: tag, Limit: 10} }
	f.checkPages([]pageCase{
		{q("bug"), ids("inbox", 3, 1), false},
		{q("ui"), ids("inbox", 3, 1), false},
		{q("bugfix"), ids("inbox", 2), false},
		{q("bu"), nil, false},
		{q("a_c"), nil, false}, // '_' is a LIKE wildcard
		{q("xzy"), nil, false},
		{q("x.y"), ids("inbox", 4), false},
		{q("x_y"), nil, false},
	})
}

func testListFilteredPaging(t *testing.T, f *fixture) {
	// 1..10; even numbers tagged "even"; only 9 and 7 owned by ai:x.
	for n := 1; n <= 10; n++ {
		var opts []ticketOpt
		if n%2 == 0 {
			opts = append(opts, withTags("even"))
		}
		if n == 9 || n == 7 {
			opts = append(opts, withOwner("ai:x"))
		}
		if n == 4 || n == 8 {
			opts = append(opts, withStatus(board.StatusDoing))
		}
		f.create("inbox", "c"+itoa(n), opts...)
	}
	tag := func(limit int, before int64) board.TicketQuery {
		return board.TicketQuery{Workspace: "inbox", Tag: "even", Limit: limit, Before: before}
	}
	owner := func(limit int, before int64) board.TicketQuery {
		return board.TicketQuery{Workspace: "inbox", Owner: "ai:x", Limit: limit, Before: before}
	}
	f.checkPages([]pageCase{
		{tag(2, 0), ids("inbox", 10, 8), true},
		{tag(2, 8), ids("inbox", 6, 4), true},
		{tag(2, 4), ids("inbox", 2), false},
		{tag(5, 0), ids("inbox", 10, 8, 6, 4, 2), false},
		{tag(4, 0), ids("inbox", 10, 8, 6, 4), true},
		// The last match sits exactly at the limit with non-matching
		// tickets below it: there are no more matches.
		{owner(2, 0), ids("inbox", 9, 7), false},
		{owner(1, 0), ids("inbox", 9), true},
		{owner(1, 9), ids("inbox", 7), false},
		{owner(5, 7), nil, false},
		// Combined: even and doing.
		{board.TicketQuery{Workspace: "inbox", Tag: "even", Status: board.StatusDoing, Limit: 1}, ids("inbox", 8), true},
		{board.TicketQuery{Workspace: "inbox", Tag: "even", Status: board.StatusDoing, Limit: 1, Before: 8}, ids("inbox", 4), false},
		{board.TicketQuery{Workspace: "inbox", Tag: "even", Owner: "ai:x", Limit: 10}, nil, false},
		{board.TicketQuery{Workspace: "inbox", Status: board.StatusCandidate, Query: "ticket 1", Limit: 10}, ids("inbox", 1), false},
	})
}

func testListWorkspaces(t *testing.T, f *fixture) {
	_, err := f.s.ListTickets(f.ctx, board.TicketQuery{Workspace: "nope", Limit: 10})
	assertIs(t, "ListTickets(nope)", err, board.ErrNotFound)
	f.create("inbox", "c")
	for ws, policy := range map[string]board.AIPolicy{"reference": board.PolicyReadOnly, "private": board.PolicyHidden} {
		page := f.list(board.TicketQuery{Workspace: ws, Limit: 10})
		if len(page.Tickets) != 0 || page.More {
			t.Errorf("ListTickets(%s) of an empty workspace: %v more=%v", ws, ticketIDs(page.Tickets), page.More)
		}
		if page.Policy != policy {
			t.Errorf("ListTickets(%s).Policy = %q, want %q", ws, page.Policy, policy)
		}
	}
}

// testListCounts: every page carries the workspace's counts as kept, so a
// list has a total without counting; the store's own creates, moves and
// policy changes show in the next page. (Another instance's writes may show
// a little later on DynamoDB: docs/dynamodb.md.)
func testListCounts(t *testing.T, f *fixture) {
	statuses := []board.Status{board.StatusCandidate, board.StatusDoing, board.StatusDone, board.StatusDoing}
	var plans []board.CreatePlan
	for i, st := range statuses {
		plans = append(plans, f.create("inbox", "c"+itoa(i), withStatus(st)))
	}
	q := board.TicketQuery{Workspace: "inbox", Status: board.StatusDone, Limit: 1}
	if f.list(q).Counts == nil {
		t.Fatal("ListTickets(inbox).Counts is nil: the store read the workspace's row or item and has them")
	}
	assertCounts(t, "ListTickets(inbox).Counts", map[board.Status]int{board.StatusCandidate: 1, board.StatusDoing: 2, board.StatusDone: 1},
		f.list(q).Counts)
	f.save(f.moveTx(plans[1].Ticket, "m", board.StatusDone, ""))
	f.create("inbox", "c9", withStatus(board.StatusHold))
	want := map[board.Status]int{board.StatusCandidate: 1, board.StatusDoing: 1, board.StatusDone: 2, board.StatusHold: 1}
	assertCounts(t, "ListTickets(inbox).Counts after a move and a create", want, f.list(q).Counts)
	ev := board.Event{ID: f.id("ev"), Workspace: "inbox", Type: board.EventWorkspaceUpdated, Fields: []string{"ai_policy"},
		Author: "human:admin", Source: board.SourceWeb, At: f.now()}
	if err := f.s.SetWorkspacePolicy(f.ctx, "inbox", board.PolicyReadOnly, ev); err != nil {
		t.Fatalf("SetWorkspacePolicy: %v", err)
	}
	page := f.list(q)
	assertCounts(t, "ListTickets(inbox).Counts after a policy change", want, page.Counts)
	if page.Policy != board.PolicyReadOnly {
		t.Errorf("ListTickets(inbox).Policy = %q after the change, want read_only", page.Policy)
	}
	if c := f.list(board.TicketQuery{Workspace: "reference", Limit: 1}).Counts; c == nil {
		t.Error("ListTickets(reference).Counts is nil: an empty workspace's counts are known (all zero)")
	} else {
		assertCounts(t, "ListTickets(reference).Counts", map[board.Status]int{}, c)
	}
}
