package board

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// testSeal seals the cursors of the tests of this package.
var testSeal = &cursorSeal{key: []byte("a key the tests of board seal with")}

// jsonSize is the plain JSON length, the simplest Sizer.
func jsonSize(v any) int {
	b, _ := json.Marshal(v)
	return len(b)
}

// Fit keeps the newest activity, taking from notes and events by time, and
// each cursor points before the oldest entry kept: from it the page tools
// continue where the answer stopped.
func TestTicketDetailFitKeepsTheNewest(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	d := TicketDetail{Ticket: Ticket{ID: "inbox-1", Workspace: "inbox", Title: "t"}, seal: testSeal}
	for i := range 6 { // notes at 0, 2, 4, ...; events at 1, 3, 5, ...
		d.Notes = append(d.Notes, Note{ID: fmt.Sprintf("n%d", i), TicketID: "inbox-1", Body: strings.Repeat("x", 1000), CreatedAt: t0.Add(time.Duration(2*i) * time.Second)})
		d.History = append(d.History, Event{ID: fmt.Sprintf("e%d", i), Workspace: "inbox", TicketID: "inbox-1", Reason: strings.Repeat("y", 1000), At: t0.Add(time.Duration(2*i+1) * time.Second)})
	}
	whole := jsonSize(&d)
	if !d.Fit(jsonSize, whole+100) || len(d.Notes) != 6 || d.NotesCursor != nil {
		t.Fatalf("Fit to more than the answer changed it: %d notes, cursor %v", len(d.Notes), d.NotesCursor)
	}
	if !d.Fit(jsonSize, 5000) {
		t.Fatal("Fit to 5000 bytes: false")
	}
	if got := jsonSize(&d); got > 5000 {
		t.Errorf("fitted answer is %d bytes, over 5000", got)
	}
	// Three or four entries of ~1 KB fit: the newest, taken alternately
	// (e5, n5, e4, n4, ...).
	kept := len(d.Notes) + len(d.History)
	wantNotes := []string{"n4", "n5"}[2-kept/2:]
	wantEvents := []string{"e4", "e5"}[2-(kept+1)/2:]
	if kept < 3 || kept > 4 || strings.Join(noteIDs(d.Notes), ",") != strings.Join(wantNotes, ",") ||
		strings.Join(eventIDs(d.History), ",") != strings.Join(wantEvents, ",") {
		t.Fatalf("kept notes %v and events %v, want the newest %d entries by time", noteIDs(d.Notes), eventIDs(d.History), kept)
	}
	pos, err := decodeActivityCursor(testSeal, *d.NotesCursor, "inbox-1", activityNotes, toolListNotes)
	if err != nil || pos == nil || pos.ID != d.Notes[0].ID || !pos.At.Equal(d.Notes[0].CreatedAt) {
		t.Errorf("notes_cursor continues before %+v (%v), want %s", pos, err, d.Notes[0].ID)
	}
	pos, err = decodeActivityCursor(testSeal, *d.HistoryCursor, "inbox-1", activityHistory, toolListHistory)
	if err != nil || pos == nil || pos.ID != d.History[0].ID {
		t.Errorf("history_cursor continues before %+v (%v), want %s", pos, err, d.History[0].ID)
	}
	// Too small for any entry: none is kept, and the cursors start from the newest.
	if !d.Fit(jsonSize, jsonSize(&TicketDetail{Ticket: d.Ticket})+700) || len(d.Notes)+len(d.History) != 0 {
		t.Fatalf("Fit to the ticket alone kept %d notes, %d events", len(d.Notes), len(d.History))
	}
	if pos, err := decodeActivityCursor(testSeal, *d.NotesCursor, "inbox-1", activityNotes, toolListNotes); err != nil || pos != nil {
		t.Errorf("a cursor when no note was kept: %+v, %v; want one from the newest", pos, err)
	}
}

// A page cut to size continues right after its last ticket and says it
// is partial.
func TestTicketListFitContinuesAfterTheLastKept(t *testing.T) {
	q := TicketQuery{Workspace: "inbox", Tag: "x", Limit: 10}
	l := TicketList{query: q, seal: testSeal}
	for n := int64(10); n >= 1; n-- {
		l.Tickets = append(l.Tickets, Ticket{ID: fmt.Sprintf("inbox-%d", n), Workspace: "inbox", Number: n, Body: strings.Repeat("b", 1000)})
	}
	if !l.Fit(jsonSize, 4000) {
		t.Fatal("Fit: false")
	}
	if len(l.Tickets) == 0 || len(l.Tickets) >= 10 || !l.Partial || l.NextCursor == nil {
		t.Fatalf("fitted page: %d tickets, partial %v, cursor %v", len(l.Tickets), l.Partial, l.NextCursor)
	}
	before, _, err := decodeCursor(testSeal, *l.NextCursor, q)
	if err != nil || before != l.Tickets[len(l.Tickets)-1].Number {
		t.Errorf("next_cursor continues below %d (%v), want %d", before, err, l.Tickets[len(l.Tickets)-1].Number)
	}
}

// A page of notes or history cut to size keeps its newest entries (a page
// is oldest first), and next_cursor continues before the oldest kept; a
// page that cannot keep even one entry says so.
func TestActivityPagesFitKeepTheNewest(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	notes := NoteList{TicketID: "inbox-1", seal: testSeal}
	history := HistoryList{TicketID: "inbox-1", seal: testSeal}
	for i := range 6 {
		at := t0.Add(time.Duration(i) * time.Second)
		notes.Notes = append(notes.Notes, Note{ID: fmt.Sprintf("n%d", i), TicketID: "inbox-1", Body: strings.Repeat("x", 1000), CreatedAt: at})
		history.History = append(history.History, Event{ID: fmt.Sprintf("e%d", i), Workspace: "inbox", TicketID: "inbox-1", Reason: strings.Repeat("y", 1000), At: at})
	}
	tooSmallNotes, tooSmallHistory := notes, history

	if !notes.Fit(jsonSize, 3500) || jsonSize(&notes) > 3500 {
		t.Fatalf("notes fitted to 3500 bytes: %d bytes", jsonSize(&notes))
	}
	if got := strings.Join(noteIDs(notes.Notes), ","); got != "n3,n4,n5" && got != "n4,n5" {
		t.Fatalf("kept notes %s, want the newest two or three", got)
	}
	if pos, err := decodeActivityCursor(testSeal, *notes.NextCursor, "inbox-1", activityNotes, toolListNotes); err != nil || pos == nil || pos.ID != notes.Notes[0].ID {
		t.Errorf("next_cursor continues before %+v (%v), want %s", pos, err, notes.Notes[0].ID)
	}
	if !history.Fit(jsonSize, 3500) || jsonSize(&history) > 3500 {
		t.Fatalf("history fitted to 3500 bytes: %d bytes", jsonSize(&history))
	}
	if got := strings.Join(eventIDs(history.History), ","); got != "e3,e4,e5" && got != "e4,e5" {
		t.Fatalf("kept events %s, want the newest two or three", got)
	}
	if pos, err := decodeActivityCursor(testSeal, *history.NextCursor, "inbox-1", activityHistory, toolListHistory); err != nil || pos == nil || pos.ID != history.History[0].ID {
		t.Errorf("next_cursor continues before %+v (%v), want %s", pos, err, history.History[0].ID)
	}

	if tooSmallNotes.Fit(jsonSize, 900) || tooSmallHistory.Fit(jsonSize, 900) {
		t.Error("a page with no room for one entry fitted")
	}
}

// Activity cursors are bound to their ticket and list.
func TestActivityCursorsRefuseOtherUses(t *testing.T) {
	c := *encodeActivityCursor(testSeal, "inbox-1", activityNotes, &Position{At: time.Now(), ID: "n1"})
	if _, err := decodeActivityCursor(testSeal, c, "inbox-2", activityNotes, toolListNotes); err == nil || !strings.Contains(err.Error(), "issued for ticket 'inbox-1'") {
		t.Errorf("a notes cursor of inbox-1 for inbox-2: %v", err)
	}
	if _, err := decodeActivityCursor(testSeal, c, "inbox-1", activityHistory, toolListHistory); err == nil || !strings.Contains(err.Error(), "not a history cursor") {
		t.Errorf("a notes cursor for the history: %v", err)
	}
	for _, bad := range []string{"", "!!", "e30"} {
		if _, err := decodeActivityCursor(testSeal, bad, "inbox-1", activityNotes, toolListNotes); err == nil {
			t.Errorf("cursor %q accepted", bad)
		}
	}
}

// jsonBytes is encoding/json's length for the text it is given.
func TestJSONBytesMatchesEncoding(t *testing.T) {
	for _, s := range []string{"plain", "Grüße 🎫", "\x01\x1f", `"quoted" \ back`, "<a & b>", "line\nbreak\ttab\r", "\u2028\u2029", ""} {
		b, _ := json.Marshal(s)
		if got, want := jsonBytes(s), len(b)-2; got != want {
			t.Errorf("jsonBytes(%q) = %d, encoding/json writes %d", s, got, want)
		}
	}
}

func noteIDs(ns []Note) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.ID)
	}
	return out
}

func eventIDs(es []Event) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}
