package board

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

var feedT0 = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// feedEvents are n events of one workspace, newest first, a second apart.
func feedEvents(ws string, n int, offset int) []Event {
	var out []Event
	for i := n - 1; i >= 0; i-- {
		out = append(out, Event{ID: fmt.Sprintf("%s-%02d", ws, i), Workspace: ws, At: feedT0.Add(time.Duration(2*i+offset) * time.Second)})
	}
	return out
}

// Fit keeps the newest events and points next_cursor after the last one
// kept, bound to the page's filters.
func TestActivityListFitKeepsTheNewest(t *testing.T) {
	l := ActivityList{Workspace: "inbox", filter: feedFilter(ListActivityInput{Workspace: "inbox"}), seal: testSeal}
	for i := range 6 {
		l.Events = append(l.Events, Event{ID: fmt.Sprintf("e%d", 5-i), Workspace: "inbox", Reason: strings.Repeat("y", 1000),
			At: feedT0.Add(time.Duration(5-i) * time.Second)})
	}
	if !l.Fit(jsonSize, 4000) {
		t.Fatal("Fit to 4000 bytes: false")
	}
	if got := jsonSize(&l); got > 4000 {
		t.Errorf("fitted answer is %d bytes, over 4000", got)
	}
	if len(l.Events) == 0 || len(l.Events) > 3 || l.Events[0].ID != "e5" || !l.Partial || l.NextCursor == nil {
		t.Fatalf("kept %v (partial %v, cursor %v); want the newest few, partial, with a cursor", eventIDs(l.Events), l.Partial, l.NextCursor)
	}
	pos, err := decodeFeedCursor(testSeal, *l.NextCursor, l.filter)
	last := l.Events[len(l.Events)-1]
	if err != nil || pos.ID != last.ID || !pos.At.Equal(last.At) {
		t.Errorf("next_cursor continues before %+v (%v), want %s", pos, err, last.ID)
	}
	if _, err := decodeFeedCursor(testSeal, *l.NextCursor, feedFilter(ListActivityInput{Workspace: "inbox", Kind: EventNoteAdded})); err == nil ||
		!strings.Contains(err.Error(), "other filters") {
		t.Errorf("a cursor reused with another kind: %v, want it refused", err)
	}
}

// The walk takes matches until the page is full, stops at since, and ends
// a page early, partial, once its scan bound is reached.
func TestFeedWalk(t *testing.T) {
	evs := feedEvents("a", 6, 0)
	for i := range evs {
		evs[i].Author = []string{"x", "y"}[i%2]
	}
	walk := func(q FeedQuery) FeedPage {
		w := FeedWalk{Query: q}
		for _, e := range evs {
			if !w.Step(e) {
				break
			}
		}
		return w.Done()
	}
	full := walk(FeedQuery{Limit: 2})
	if len(full.Events) != 2 || !full.More || full.Next.ID != "a-04" || full.Partial {
		t.Errorf("limit 2: %v, more %v, next %+v", eventIDs(full.Events), full.More, full.Next)
	}
	since := walk(FeedQuery{Limit: 10, Since: evs[2].At})
	if len(since.Events) != 2 || since.More || since.Next != nil {
		t.Errorf("since the third newest: %v, more %v; want the two newer, nothing more", eventIDs(since.Events), since.More)
	}
	partial := walk(FeedQuery{Limit: 10, Author: "y", MaxScan: 3})
	if strings.Join(eventIDs(partial.Events), ",") != "a-04" || !partial.Partial || !partial.More || partial.Next.ID != "a-03" {
		t.Errorf("scan 3 for y: %v, partial %v, next %+v; want a-04, partial, continuing after a-03", eventIDs(partial.Events), partial.Partial, partial.Next)
	}
}
