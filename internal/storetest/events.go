package storetest

import (
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// ListEvents: a workspace's history, newest first.

func listEventsTests() []contractTest {
	return []contractTest{
		{"newest first, every kind of event intact", testEventsOrder},
		{"limit is respected", testEventsLimit},
		{"a fresh workspace has no events", testEventsEmpty},
	}
}

func testEventsOrder(t *testing.T, f *fixture) {
	a := f.create("inbox", "a")
	f.create("reference", "r") // another workspace's event
	up := f.updateTx(a.Ticket, alice, "u", f.now(), []string{"title", "owner"}, func(t *board.Ticket) {
		t.Title = "new"
		o := "human"
		t.Owner = &o
	})
	// The title and the short fields' values travel with the event.
	up.Event.Title = "new"
	up.Event.Changes = []board.FieldChange{{Field: "title", Before: "a", After: "new"}, {Field: "owner", Before: nil, After: "human"}}
	f.save(up)
	mv := f.moveTx(*up.After, "m", board.StatusWaitingHuman, "needs a decision — bitte prüfen")
	mv.Event.Title = "new"
	f.save(mv)
	note := f.noteTx(*mv.After, "n", "a note")
	note.Event.Title = "new"
	f.save(note)
	ws := board.Event{ID: f.id("ev"), Workspace: "inbox", Type: board.EventWorkspaceUpdated, Fields: []string{"ai_policy"},
		Author: human, Source: board.SourceWeb, At: f.now()}
	if err := f.s.SetWorkspacePolicy(f.ctx, "inbox", board.PolicyReadOnly, ws); err != nil {
		t.Fatalf("SetWorkspacePolicy: %v", err)
	}
	b := f.create("inbox", "b")

	want := []board.Event{b.Event, ws, *note.Event, *mv.Event, *up.Event, a.Event}
	assertEvents(t, "ListEvents(inbox, 100)", want, f.events("inbox", 100))
	assertEvents(t, "ListEvents(inbox, 6)", want, f.events("inbox", len(want)))
}

func testEventsLimit(t *testing.T, f *fixture) {
	var created []board.Event
	for i := range 7 {
		created = append([]board.Event{f.create("inbox", "c"+itoa(i)).Event}, created...)
	}
	for _, limit := range []int{1, 3, 6, 7} {
		assertEvents(t, "ListEvents(inbox, "+itoa(limit)+")", created[:limit], f.events("inbox", limit))
	}
	assertEvents(t, "ListEvents(inbox, 20)", created, f.events("inbox", 20))
}

func testEventsEmpty(t *testing.T, f *fixture) {
	f.create("inbox", "c")
	for _, ws := range []string{"reference", "private"} {
		assertEvents(t, "ListEvents("+ws+")", nil, f.events(ws, 10))
	}
}
