package storetest

import (
	"errors"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// ListActivity: the activity feed, newest first, a page at a time, with
// since, author and type filters, one workspace or every readable one.

func feedTests() []contractTest {
	return []contractTest{
		{"one workspace newest first, paged to the end", testFeedPages},
		{"since keeps only later events", testFeedSince},
		{"author and type filters, read through every page at a small scan bound", testFeedFilters},
		{"a workspace not readable or absent reads nothing", testFeedPolicy},
		{"every workspace, merged newest first, paged", testFeedAll},
		{"every readable workspace by current policy", testFeedAllHidden},
	}
}

// feedBoard writes events in three workspaces by two authors and returns
// them newest first.
func feedBoard(f *fixture) []board.Event {
	var out []board.Event
	add := func(e board.Event) { out = append([]board.Event{e}, out...) }
	for i, ws := range []string{"inbox", "reference", "inbox", "private", "inbox", "reference", "inbox"} {
		who := alice
		if i%2 == 1 {
			who = bob
		}
		plan := f.mustCreate(f.newCreate(ws, who, "feed-"+itoa(i), f.now()))
		add(plan.Event)
		if i%3 == 0 {
			mv := f.moveTx(plan.Ticket, "feed-mv-"+itoa(i), board.StatusDoing, "started")
			f.save(mv)
			add(*mv.Event)
		}
	}
	return out
}

// readFeed follows a feed's pages to the end and checks each one's shape.
func (f *fixture) readFeed(q board.FeedQuery) []board.Event {
	f.t.Helper()
	var got []board.Event
	for range 100 {
		page, err := f.s.ListActivity(f.ctx, q)
		if err != nil {
			f.t.Fatalf("ListActivity(%+v): %v", q, err)
		}
		if len(page.Events) > q.Limit {
			f.t.Fatalf("ListActivity(%+v): %d events, over the limit", q, len(page.Events))
		}
		if page.More && page.Next == nil {
			f.t.Fatalf("ListActivity(%+v): More without Next", q)
		}
		if !page.More && page.Next != nil {
			f.t.Fatalf("ListActivity(%+v): Next without More", q)
		}
		if page.More && len(page.Events) < q.Limit && !page.Partial {
			f.t.Fatalf("ListActivity(%+v): a short page with more to come must be Partial", q)
		}
		got = append(got, page.Events...)
		if !page.More {
			return got
		}
		q.Before = page.Next
	}
	f.t.Fatalf("ListActivity(%+v): no end after 100 pages", q)
	return nil
}

func only(evs []board.Event, keep func(board.Event) bool) []board.Event {
	var out []board.Event
	for _, e := range evs {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

func inWorkspace(ws string) func(board.Event) bool {
	return func(e board.Event) bool { return e.Workspace == ws }
}

func testFeedPages(t *testing.T, f *fixture) {
	all := feedBoard(f)
	want := only(all, inWorkspace("inbox"))
	for _, limit := range []int{1, 2, 3, len(want), 100} {
		got := f.readFeed(board.FeedQuery{Workspace: "inbox", Limit: limit})
		assertEvents(t, "inbox feed, limit "+itoa(limit), want, got)
	}
	page, err := f.s.ListActivity(f.ctx, board.FeedQuery{Workspace: "inbox", Limit: len(want)})
	if err != nil || page.More || page.Partial {
		t.Errorf("a page holding the whole feed: More %v, Partial %v, err %v; want neither", page.More, page.Partial, err)
	}
	empty, err := f.s.ListActivity(f.ctx, board.FeedQuery{Workspace: "ops-none", Limit: 5})
	if !errors.Is(err, board.ErrNotFound) {
		t.Errorf("an absent workspace: %v, %v; want ErrNotFound", empty, err)
	}
}

func testFeedSince(t *testing.T, f *fixture) {
	all := feedBoard(f)
	inbox := only(all, inWorkspace("inbox"))
	since := inbox[2].At // the third newest: it and older ones are left out
	got := f.readFeed(board.FeedQuery{Workspace: "inbox", Limit: 1, Since: since})
	assertEvents(t, "inbox feed since the third newest", inbox[:2], got)
	got = f.readFeed(board.FeedQuery{Limit: 2, Since: since})
	assertEvents(t, "every workspace since the same time", only(all, func(e board.Event) bool { return e.At.After(since) }), got)
	got = f.readFeed(board.FeedQuery{Workspace: "inbox", Limit: 5, Since: inbox[0].At})
	assertEvents(t, "since the newest event", nil, got)
}

func testFeedFilters(t *testing.T, f *fixture) {
	all := feedBoard(f)
	inbox := only(all, inWorkspace("inbox"))
	byBob := func(e board.Event) bool { return e.Author == bob }
	moves := func(e board.Event) bool { return e.Type == board.EventTicketMoved }
	cases := []struct {
		name string
		q    board.FeedQuery
		want []board.Event
	}{
		{"author", board.FeedQuery{Workspace: "inbox", Author: bob}, only(inbox, byBob)},
		{"type", board.FeedQuery{Workspace: "inbox", Type: board.EventTicketMoved}, only(inbox, moves)},
		{"author and type", board.FeedQuery{Workspace: "inbox", Author: alice, Type: board.EventTicketMoved},
			only(inbox, func(e board.Event) bool { return e.Author == alice && moves(e) })},
		{"no match", board.FeedQuery{Workspace: "inbox", Author: "ai:nobody"}, nil},
		{"every workspace by author", board.FeedQuery{Author: bob}, only(all, byBob)},
		{"every workspace by type", board.FeedQuery{Type: board.EventTicketMoved}, only(all, moves)},
	}
	for _, c := range cases {
		for _, limit := range []int{1, 2, 50} {
			for _, scan := range []int{1, 2, 1000} {
				q := c.q
				q.Limit, q.MaxScan = limit, scan
				assertEvents(t, c.name+", limit "+itoa(limit)+", scan "+itoa(scan), c.want, f.readFeed(q))
			}
		}
	}
}

func testFeedPolicy(t *testing.T, f *fixture) {
	feedBoard(f)
	ai := []board.AIPolicy{board.PolicyReadWrite, board.PolicyReadOnly}
	_, err := f.s.ListActivity(f.ctx, board.FeedQuery{Workspace: "private", Readable: ai, Limit: 5})
	var denied *board.PolicyError
	if !errors.As(err, &denied) || denied.Policy != board.PolicyHidden {
		t.Errorf("a hidden workspace read by AI: %v; want *PolicyError(hidden)", err)
	}
	got := f.readFeed(board.FeedQuery{Workspace: "reference", Readable: ai, Limit: 5})
	if len(got) == 0 {
		t.Error("a read_only workspace read by AI: no events; want its events")
	}
}

func testFeedAll(t *testing.T, f *fixture) {
	all := feedBoard(f)
	for _, limit := range []int{1, 3, 100} {
		for _, scan := range []int{1, 1000} {
			got := f.readFeed(board.FeedQuery{Limit: limit, MaxScan: scan})
			assertEvents(t, "every workspace, limit "+itoa(limit)+", scan "+itoa(scan), all, got)
		}
	}
}

func testFeedAllHidden(t *testing.T, f *fixture) {
	all := feedBoard(f)
	ai := []board.AIPolicy{board.PolicyReadWrite, board.PolicyReadOnly}
	notPrivate := func(e board.Event) bool { return e.Workspace != "private" }
	assertEvents(t, "every workspace AI may read", only(all, notPrivate), f.readFeed(board.FeedQuery{Readable: ai, Limit: 2}))
	// Hiding inbox now hides its events written before.
	hide := board.Event{ID: f.id("ev"), Workspace: "inbox", Type: board.EventWorkspaceUpdated, Fields: []string{"ai_policy"},
		Author: human, Source: board.SourceWeb, At: f.now()}
	if err := f.s.SetWorkspacePolicy(f.ctx, "inbox", board.PolicyHidden, hide); err != nil {
		t.Fatalf("SetWorkspacePolicy: %v", err)
	}
	want := only(all, func(e board.Event) bool { return e.Workspace == "reference" })
	for _, scan := range []int{1, 1000} {
		got := f.readFeed(board.FeedQuery{Readable: ai, Limit: 2, MaxScan: scan})
		assertEvents(t, "every workspace AI may read after inbox was hidden, scan "+itoa(scan), want, got)
	}
	assertEvents(t, "every workspace, for people", append([]board.Event{hide}, all...), f.readFeed(board.FeedQuery{Limit: 4}))
}
