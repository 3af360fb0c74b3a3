package storetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/boardfile"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// A redaction takes the note's text out of everything the store keeps:
// the note, its edit events, and the request records of the calls that
// wrote it (board/noteredaction.go).

// leaks fails for every secret found in what a read answered.
func leaks(t *testing.T, where string, v any, secrets ...string) {
	t.Helper()
	var text string
	switch x := v.(type) {
	case []byte:
		text = string(x)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		text = string(b)
	}
	for _, s := range secrets {
		if strings.Contains(text, s) {
			t.Errorf("%s still holds %q after the redaction", where, s)
		}
	}
}

// historyOf is a ticket's whole history, oldest first.
func (r *claimRig) historyOf(t *testing.T, id string) []board.Event {
	t.Helper()
	h, err := r.svc.ListTicketHistory(personCtx(r.f, "alice"), board.TicketActivityInput{ID: id, Limit: board.MaxLimit})
	if err != nil || h.NextCursor != nil {
		t.Fatalf("history of %s: %+v, %v; want one page", id, h, err)
	}
	return h.History
}

func testNoteRedactScrubs(t *testing.T, f *fixture) {
	r := newClaimRig(t, f)
	id := r.ticket(t, "inbox", "Guest wifi")
	claude := agentCtx(f, "claude")
	secrets := []string{"zebrafish41", "quokka77", "narwhal93"}
	n := r.note(t, claude, id, "the wifi code is zebrafish41")
	for i, s := range secrets[1:] {
		r.advance(time.Second)
		if _, err := r.svc.EditNote(claude, board.EditNoteInput{RequestID: fmt.Sprintf("edit-%d", i+1), NoteID: n.ID, Body: "the wifi code is " + s}); err != nil {
			t.Fatal(err)
		}
	}
	before := r.historyOf(t, id)
	version := r.get(t, id).Ticket.Version
	r.advance(time.Second)
	admin := adminCtx(f, "root")
	red, err := r.svc.RedactNote(admin, board.RedactNoteInput{RequestID: "red", NoteID: n.ID, Reason: "a secret was posted"})
	if err != nil {
		t.Fatal(err)
	}

	after := r.historyOf(t, id)
	if len(after) != len(before)+1 || after[len(after)-1].Type != board.EventNoteRedacted {
		t.Fatalf("history after the redaction: %d events (want %d, the redaction last)", len(after), len(before)+1)
	}
	edits := 0
	for i, e := range before {
		a := after[i]
		if a.ID != e.ID || !a.At.Equal(e.At) || a.Type != e.Type || a.Author != e.Author || a.OnBehalfOf != e.OnBehalfOf || a.RequestID != e.RequestID || a.NoteID != e.NoteID {
			t.Errorf("event %d: %+v, want %+v but for its texts", i, a, e)
		}
		if e.Type != board.EventNoteEdited {
			continue
		}
		edits++
		if len(a.Changes) != 1 || a.Changes[0].Field != "body" || a.Changes[0].Before != board.RedactedNoteBody || a.Changes[0].After != board.RedactedNoteBody {
			t.Errorf("edit %s kept %+v, want the body before and after as %q", a.ID, a.Changes, board.RedactedNoteBody)
		}
	}
	if edits != 2 {
		t.Errorf("%d edits in the history, want 2", edits)
	}
	leaks(t, "list_ticket_history", after, secrets...)
	leaks(t, "get_ticket", r.get(t, id), secrets...)
	feed, err := r.svc.ListActivity(personCtx(f, "alice"), board.ListActivityInput{Workspace: "inbox", Limit: board.MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	leaks(t, "the activity feed", feed, secrets...)
	for _, s := range secrets {
		found, err := r.svc.ListTickets(personCtx(f, "alice"), board.ListTicketsInput{Workspace: "inbox", Query: s})
		if err != nil || len(found.Tickets) != 0 {
			t.Errorf("search for %q: %+v, %v; want nothing", s, found.Tickets, err)
		}
	}
	if found, err := r.svc.ListTickets(personCtx(f, "alice"), board.ListTicketsInput{Workspace: "inbox", Query: "wifi"}); err != nil || len(found.Tickets) != 1 {
		t.Errorf("search for the title's word: %+v, %v; want the ticket", found.Tickets, err)
	}
	// The calls that wrote the texts keep their records, and a replay
	// answers the redacted note.
	for _, rid := range []string{"edit-1", "edit-2"} {
		rec, err := f.s.GetRequest(f.ctx, ledger.Key{Principal: "ai:claude|human:alice", RequestID: rid}, r.clock())
		if err != nil {
			t.Fatalf("the record of %s: %v", rid, err)
		}
		leaks(t, "the record of "+rid, rec, secrets...)
	}
	again, err := r.svc.EditNote(claude, board.EditNoteInput{RequestID: "edit-1", NoteID: n.ID, Body: "the wifi code is quokka77"})
	if err != nil || !again.Replayed || again.Note.Body != board.RedactedNoteBody {
		t.Errorf("a replay of the first edit: %+v, %v; want it replayed, with the note as it is now", again, err)
	}
	buf, ok := exportForCheck(t, f, r.clock())
	if !ok {
		return
	}
	if !strings.Contains(buf.String(), n.ID) {
		t.Fatalf("the export holds no note %s", n.ID)
	}
	leaks(t, "the export", buf.Bytes(), secrets...)

	replay, err := r.svc.RedactNote(admin, board.RedactNoteInput{RequestID: "red", NoteID: n.ID, Reason: "a secret was posted"})
	if err != nil || !replay.Replayed || !board.SameNote(replay.Note, red.Note) {
		t.Errorf("a replay of the redaction: %+v, %v; want the first answer", replay, err)
	}
	if d := r.get(t, id); d.Ticket.Version != version+1 || len(r.historyOf(t, id)) != len(after) {
		t.Errorf("the replay wrote: version %d (want %d)", d.Ticket.Version, version+1)
	}
}

// testNoteEditLimit: a note is edited at most board.MaxNoteEdits times, so
// that its redaction rewrites every edit in one write (on DynamoDB, one
// transaction of at most 100 items).
func testNoteEditLimit(t *testing.T, f *fixture) {
	r := newClaimRig(t, f)
	id := r.ticket(t, "inbox", "Often corrected")
	alice := personCtx(f, "alice")
	n := r.note(t, alice, id, "draft 0 secretword0")
	for i := 1; i <= board.MaxNoteEdits; i++ {
		r.advance(time.Millisecond)
		if _, err := r.svc.EditNote(alice, board.EditNoteInput{RequestID: fmt.Sprintf("e%d", i), NoteID: n.ID, Body: fmt.Sprintf("draft %d secretword%d", i, i)}); err != nil {
			t.Fatalf("edit %d: %v", i, err)
		}
	}
	version := r.get(t, id).Ticket.Version
	_, err := r.svc.EditNote(alice, board.EditNoteInput{RequestID: "one-more", NoteID: n.ID, Body: "one more"})
	wantCode(t, "an edit past the limit", err, board.CodeConflict, fmt.Sprint(board.MaxNoteEdits), "add a new note")
	r.unchanged(t, "the refused edit", id, version, "", "")
	if rec, err := f.s.GetRequest(f.ctx, ledger.Key{Principal: "human:alice", RequestID: "one-more"}, r.clock()); err == nil {
		t.Errorf("the refused edit kept a record: %+v", rec)
	}
	r.advance(time.Millisecond)
	if _, err := r.svc.RedactNote(adminCtx(f, "root"), board.RedactNoteInput{RequestID: "red", NoteID: n.ID, Reason: "too much"}); err != nil {
		t.Fatalf("the redaction of a note edited %d times: %v", board.MaxNoteEdits, err)
	}
	var secrets []string
	for i := 0; i <= board.MaxNoteEdits; i++ {
		secrets = append(secrets, fmt.Sprintf("secretword%d\"", i), fmt.Sprintf("secretword%d ", i))
	}
	h := r.historyOf(t, id)
	leaks(t, "the history", h, secrets...)
	if buf, ok := exportForCheck(t, f, r.clock()); ok {
		leaks(t, "the export", buf.Bytes(), secrets...)
	}
}

// exporter is what a store built without its export (the DynamoDB store
// in the Lambda build, which leaves Scan out) says about itself.
type exporter interface{ CanExport() bool }

// exportForCheck exports the fixture's store for a check of what the
// export holds, or reports false when this build of the store has no
// export; the checks before it still ran.
func exportForCheck(t *testing.T, f *fixture, now time.Time) (*bytes.Buffer, bool) {
	t.Helper()
	if e, ok := f.s.(exporter); ok && !e.CanExport() {
		t.Log("this build of the store cannot export; the export's half of the check runs in the local build")
		return nil, false
	}
	var buf bytes.Buffer
	if _, err := boardfile.Export(f.ctx, f.s, &buf, boardfile.ExportOptions{Now: now}); err != nil {
		t.Fatal(err)
	}
	return &buf, true
}

// testNoteRedactLongAgo: the edits of a note are found however many
// events came after them (the history is read back page by page to the
// note's creation), and only that note's edits change.
func testNoteRedactLongAgo(t *testing.T, f *fixture) {
	r := newClaimRig(t, f)
	id := r.ticket(t, "inbox", "Busy ticket")
	alice := personCtx(f, "alice")
	n := r.note(t, alice, id, "first draft")
	r.advance(time.Millisecond)
	if _, err := r.svc.EditNote(alice, board.EditNoteInput{RequestID: "e1", NoteID: n.ID, Body: "the key is pelican55"}); err != nil {
		t.Fatal(err)
	}
	other := r.note(t, alice, id, "another note")
	r.advance(time.Millisecond)
	if _, err := r.svc.EditNote(alice, board.EditNoteInput{RequestID: "e2", NoteID: other.ID, Body: "another note, kept as it is"}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < board.MaxLimit+5; i++ {
		r.advance(time.Millisecond)
		r.note(t, alice, id, fmt.Sprintf("later note %d", i))
	}
	r.advance(time.Millisecond)
	if _, err := r.svc.RedactNote(adminCtx(f, "root"), board.RedactNoteInput{RequestID: "red", NoteID: n.ID, Reason: "a key"}); err != nil {
		t.Fatal(err)
	}
	var all []board.Event
	var cursor string
	for {
		h, err := r.svc.ListTicketHistory(alice, board.TicketActivityInput{ID: id, Limit: board.MaxLimit, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		all = append(h.History, all...)
		if h.NextCursor == nil {
			break
		}
		cursor = *h.NextCursor
	}
	leaks(t, "the history", all, "pelican55", "first draft")
	for _, e := range all {
		if e.Type == board.EventNoteEdited && e.NoteID == other.ID && (len(e.Changes) != 1 || e.Changes[0].After != "another note, kept as it is") {
			t.Errorf("the other note's edit changed: %+v", e.Changes)
		}
	}
}

// testNoteRedactTooManyEdits: a note moved in from a board file may have
// more edits than one redaction rewrites; its redaction is refused with
// that reason and writes nothing.
func testNoteRedactTooManyEdits(t *testing.T, f *fixture) {
	r := newClaimRig(t, f)
	id := r.ticket(t, "inbox", "Imported")
	alice := personCtx(f, "alice")
	n := r.note(t, alice, id, "imported text")
	for i := 0; i <= board.MaxNoteEdits; i++ {
		r.advance(time.Millisecond)
		ev := board.Event{ID: fmt.Sprintf("imported-edit-%02d", i), Workspace: "inbox", TicketID: id, Type: board.EventNoteEdited, NoteID: n.ID,
			Fields: []string{"body"}, Changes: []board.FieldChange{{Field: "body", Before: "a", After: "b"}},
			Author: "human:alice", Source: board.SourceWeb, At: r.clock()}
		if out, err := f.s.PutEvent(f.ctx, ev); err != nil || out != board.Added {
			t.Fatalf("put edit %d: %v, %v", i, out, err)
		}
	}
	version := r.get(t, id).Ticket.Version
	_, err := r.svc.RedactNote(adminCtx(f, "root"), board.RedactNoteInput{RequestID: "red", NoteID: n.ID, Reason: "secret"})
	wantCode(t, "the redaction of a note with too many edits", err, board.CodeConflict, "imported")
	r.unchanged(t, "the refused redaction", id, version, n.ID, "imported text")
}
