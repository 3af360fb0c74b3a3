package storetest

import (
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The feed of every workspace an AI may read leaves the hidden workspaces
// out of the walk itself: their events count toward no scan bound, end no
// page early, and are never a page's Next, so no answer changes with what
// happens in a hidden workspace.

func feedHiddenTests() []contractTest {
	return []contractTest{
		{"hidden events count toward no bound and are never a position", testFeedHiddenNotExamined},
		{"since: a hidden write between two readable ones changes nothing", testFeedHiddenSince},
	}
}

var aiReadable = []board.AIPolicy{board.PolicyReadWrite, board.PolicyReadOnly}

func testFeedHiddenNotExamined(t *testing.T, f *fixture) {
	first := f.mustCreate(f.newCreate("inbox", alice, "seen", f.now())).Event
	for i := range 8 { // newer than every readable event, and more than the scan bound
		f.mustCreate(f.newCreate("private", human, "hidden-"+itoa(i), f.now()))
	}
	for _, limit := range []int{1, 2} {
		q := board.FeedQuery{Readable: aiReadable, Author: "ai:nobody", Limit: limit, MaxScan: 4}
		page, err := f.s.ListActivity(f.ctx, q)
		if err != nil || len(page.Events) != 0 || page.More || page.Partial || page.Next != nil {
			t.Errorf("no match, limit %d: %d events, More %v, Partial %v, Next %+v, err %v; want an empty last page",
				limit, len(page.Events), page.More, page.Partial, page.Next, err)
		}
		q.Author = ""
		page, err = f.s.ListActivity(f.ctx, q)
		if err != nil || len(page.Events) != 1 || page.Events[0].ID != first.ID || page.More || page.Partial || page.Next != nil {
			t.Errorf("unfiltered, limit %d: %v, More %v, Partial %v, Next %+v, err %v; want the one readable event, nothing more",
				limit, eventTypes(page.Events), page.More, page.Partial, page.Next, err)
		}
	}
}

func testFeedHiddenSince(t *testing.T, f *fixture) {
	a1 := f.mustCreate(f.newCreate("inbox", alice, "a1", f.now())).Event
	f.mustCreate(f.newCreate("private", human, "between", f.now()))
	a2 := f.mustCreate(f.newCreate("inbox", alice, "a2", f.now())).Event
	for _, scan := range []int{1, 1000} {
		page, err := f.s.ListActivity(f.ctx, board.FeedQuery{Readable: aiReadable, Since: a1.At, Limit: 1, MaxScan: scan})
		if err != nil || len(page.Events) != 1 || page.Events[0].ID != a2.ID || page.More || page.Partial || page.Next != nil {
			t.Errorf("since the first write, limit 1, scan %d: %v, More %v, Partial %v, Next %+v, err %v; want the second write, nothing more",
				scan, eventTypes(page.Events), page.More, page.Partial, page.Next, err)
		}
	}
}
