package storetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// ReadTicket, ListNotes, ListHistory: a ticket's newest activity, pages of
// the older, and the policy decided before any of it is read.

func activityTests() []contractTest {
	return []contractTest{
		{"ReadTicket carries the newest notes and events, oldest first, and says when older ones exist", testReadTicketNewest},
		{"ListNotes and ListHistory page back in time without gap or repeat", testActivityPaging},
		{"notes of the same time are in id order, and page so", testNotesSameTime},
		{"a policy the caller may not read is refused; an absent ticket is ErrNotFound", testActivityPolicy},
	}
}

// ticketWithNotes creates a ticket and adds n notes; it returns the ticket
// as it is then, its notes and its history, oldest first.
func (f *fixture) ticketWithNotes(requestID string, n int) (board.Ticket, []board.Note, []board.Event) {
	f.t.Helper()
	plan := f.create("inbox", requestID)
	t, notes, events := plan.Ticket, []board.Note{}, []board.Event{plan.Event}
	for i := range n {
		tx := f.noteTx(t, requestID+"-note-"+itoa(i), "note "+itoa(i))
		f.save(tx)
		t, notes, events = *tx.After, append(notes, *tx.Note), append(events, *tx.Event)
	}
	return t, notes, events
}

func (f *fixture) readTicket(id string, notes, events int) board.TicketActivity {
	f.t.Helper()
	a, err := f.s.ReadTicket(f.ctx, board.TicketRead{ID: id, Notes: notes, Events: events})
	if err != nil {
		f.t.Fatalf("ReadTicket(%s, %d notes, %d events): %v", id, notes, events, err)
	}
	return a
}

func testReadTicketNewest(t *testing.T, f *fixture) {
	tk, notes, events := f.ticketWithNotes("a", 5) // 5 notes, 6 events
	f.create("inbox", "other")                     // activity of another ticket stays apart

	a := f.readTicket(tk.ID, 3, 4)
	assertTicket(t, "ReadTicket ticket", tk, a.Ticket)
	assertNotes(t, "newest 3 notes", notes[2:], a.Notes)
	assertEvents(t, "newest 4 events", events[2:], a.History)
	if !a.MoreNotes || !a.MoreHistory {
		t.Errorf("ReadTicket(3 of 5 notes, 4 of 6 events): MoreNotes=%v MoreHistory=%v, want both true", a.MoreNotes, a.MoreHistory)
	}
	if a.Policy != board.PolicyReadWrite {
		t.Errorf("ReadTicket policy %q, want read_write", a.Policy)
	}
	for _, c := range []struct{ notes, events int }{{5, 6}, {6, 7}, {20, 20}} {
		a := f.readTicket(tk.ID, c.notes, c.events)
		assertNotes(t, "every note", notes, a.Notes)
		assertEvents(t, "every event", events, a.History)
		if a.MoreNotes || a.MoreHistory {
			t.Errorf("ReadTicket(%d notes, %d events) of 5 notes and 6 events: MoreNotes=%v MoreHistory=%v, want false", c.notes, c.events, a.MoreNotes, a.MoreHistory)
		}
	}
	a = f.readTicket(tk.ID, 1, 1)
	assertNotes(t, "newest note", notes[4:], a.Notes)
	assertEvents(t, "newest event", events[5:], a.History)
}

func testActivityPaging(t *testing.T, f *fixture) {
	tk, notes, events := f.ticketWithNotes("a", 7) // 7 notes, 8 events
	pageNotes := func(before *board.Position, limit int) board.NotePage {
		t.Helper()
		p, err := f.s.ListNotes(f.ctx, board.ActivityQuery{TicketID: tk.ID, Before: before, Limit: limit})
		if err != nil {
			t.Fatalf("ListNotes: %v", err)
		}
		return p
	}
	pageEvents := func(before *board.Position, limit int) board.EventPage {
		t.Helper()
		p, err := f.s.ListHistory(f.ctx, board.ActivityQuery{TicketID: tk.ID, Before: before, Limit: limit})
		if err != nil {
			t.Fatalf("ListHistory: %v", err)
		}
		return p
	}
	// Notes, 3 a page: 5-7, 2-4, 1.
	var got []board.Note
	var before *board.Position
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatal("ListNotes never ends")
		}
		p := pageNotes(before, 3)
		if len(p.Notes) > 3 {
			t.Fatalf("ListNotes page of %d notes, limit 3", len(p.Notes))
		}
		got = append(slices.Clone(p.Notes), got...)
		if !p.More {
			break
		}
		before = &board.Position{At: p.Notes[0].CreatedAt, ID: p.Notes[0].ID}
	}
	assertNotes(t, "notes read back in pages of 3", notes, got)
	assertNotes(t, "first page", notes[4:], pageNotes(nil, 3).Notes)
	if p := pageNotes(nil, 7); p.More || len(p.Notes) != 7 {
		t.Errorf("ListNotes(limit 7) of 7 notes: %d notes, More=%v; want 7, false", len(p.Notes), p.More)
	}
	first := &board.Position{At: notes[0].CreatedAt, ID: notes[0].ID}
	if p := pageNotes(first, 3); len(p.Notes) != 0 || p.More {
		t.Errorf("ListNotes before the first note: %d notes, More=%v; want none", len(p.Notes), p.More)
	}

	// History, 3 a page: 6-8, 3-5, 1-2.
	var gotEvents []board.Event
	before = nil
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatal("ListHistory never ends")
		}
		p := pageEvents(before, 3)
		if len(p.Events) > 3 {
			t.Fatalf("ListHistory page of %d events, limit 3", len(p.Events))
		}
		gotEvents = append(slices.Clone(p.Events), gotEvents...)
		if !p.More {
			break
		}
		before = &board.Position{At: p.Events[0].At, ID: p.Events[0].ID}
	}
	assertEvents(t, "history read back in pages of 3", events, gotEvents)
	assertEvents(t, "newest events", events[5:], pageEvents(nil, 3).Events)
}

func testNotesSameTime(t *testing.T, f *fixture) {
	plan := f.create("inbox", "a")
	n1 := f.noteTx(plan.Ticket, "n1", "written first")
	n2 := f.noteTx(*n1.After, "n2", "written second")
	// The second note has the first one's time and a smaller id.
	n2.Note.CreatedAt = n1.Note.CreatedAt
	n1.Note.ID, n2.Note.ID = "note-b", "note-a"
	n2.Event.NoteID, n1.Event.NoteID = n2.Note.ID, n1.Note.ID
	f.save(n1)
	f.save(n2)
	want := []board.Note{*n2.Note, *n1.Note}
	assertNotes(t, "notes of one time, by id", want, f.readTicket(plan.Ticket.ID, 10, 10).Notes)
	p, err := f.s.ListNotes(f.ctx, board.ActivityQuery{TicketID: plan.Ticket.ID, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	assertNotes(t, "newest of them", want[1:], p.Notes)
	p, err = f.s.ListNotes(f.ctx, board.ActivityQuery{TicketID: plan.Ticket.ID, Limit: 1,
		Before: &board.Position{At: n1.Note.CreatedAt, ID: n1.Note.ID}})
	if err != nil {
		t.Fatal(err)
	}
	assertNotes(t, "the page before it", want[:1], p.Notes)
}

func testActivityPolicy(t *testing.T, f *fixture) {
	aiReads := []board.AIPolicy{board.PolicyReadWrite, board.PolicyReadOnly}
	hidden := f.create("private", "p")
	f.save(f.noteTx(hidden.Ticket, "pn", "secret"))
	ref := f.create("reference", "r")

	_, err := f.s.ReadTicket(f.ctx, board.TicketRead{ID: hidden.Ticket.ID, Notes: 10, Events: 10, Readable: aiReads})
	assertPolicyError(t, "ReadTicket of a hidden ticket", err, board.PolicyHidden)
	_, err = f.s.ListNotes(f.ctx, board.ActivityQuery{TicketID: hidden.Ticket.ID, Limit: 10, Readable: aiReads})
	assertPolicyError(t, "ListNotes of a hidden ticket", err, board.PolicyHidden)
	_, err = f.s.ListHistory(f.ctx, board.ActivityQuery{TicketID: hidden.Ticket.ID, Limit: 10, Readable: aiReads})
	assertPolicyError(t, "ListHistory of a hidden ticket", err, board.PolicyHidden)
	_, err = f.s.ListTickets(f.ctx, board.TicketQuery{Workspace: "private", Limit: 10, Readable: aiReads})
	assertPolicyError(t, "ListTickets of a hidden workspace", err, board.PolicyHidden)

	// Readable policies read; nil reads any.
	if a := f.readTicket(hidden.Ticket.ID, 10, 10); len(a.Notes) != 1 || a.Policy != board.PolicyHidden {
		t.Errorf("ReadTicket without a policy bound: %d notes, policy %q; want 1, hidden", len(a.Notes), a.Policy)
	}
	a, err := f.s.ReadTicket(f.ctx, board.TicketRead{ID: ref.Ticket.ID, Notes: 10, Events: 10, Readable: aiReads})
	if err != nil || a.Policy != board.PolicyReadOnly {
		t.Errorf("ReadTicket of a read-only ticket for AI: policy %q, %v", a.Policy, err)
	}

	for _, id := range []string{"inbox-9", "private-9", "nope-1"} {
		_, err := f.s.ReadTicket(f.ctx, board.TicketRead{ID: id, Notes: 10, Events: 10, Readable: aiReads})
		if id == "private-9" {
			// Absent in a hidden workspace: either answer is "does not exist" to the caller.
			var denied *board.PolicyError
			if !errors.Is(err, board.ErrNotFound) && !errors.As(err, &denied) {
				t.Errorf("ReadTicket(%s): %v, want ErrNotFound or *PolicyError", id, err)
			}
			continue
		}
		assertIs(t, "ReadTicket("+id+")", err, board.ErrNotFound)
		_, err = f.s.ListNotes(f.ctx, board.ActivityQuery{TicketID: id, Limit: 10})
		assertIs(t, "ListNotes("+id+")", err, board.ErrNotFound)
		_, err = f.s.ListHistory(f.ctx, board.ActivityQuery{TicketID: id, Limit: 10})
		assertIs(t, "ListHistory("+id+")", err, board.ErrNotFound)
	}
}
