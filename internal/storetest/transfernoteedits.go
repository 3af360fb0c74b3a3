package storetest

import (
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// moveEditedNote: a transfer carries a note as it stands (edited, redacted,
// with whom its agent wrote it for) and the events that keep its earlier
// text and the redaction's reason; the export streams them back.
func moveEditedNote(t *testing.T, f *fixture) {
	m := f.s
	plan := f.create("inbox", "c1")
	created := f.now()
	edited, redactedAt := created.Add(time.Minute), created.Add(2*time.Minute)
	id := "inbox-1~" + "1jx3k0p9lq8w" + "~019aef3c-6d2b-7c41-9a55-0c1f2e3d4b5a"
	note := board.Note{ID: id, TicketID: plan.Ticket.ID, Body: board.RedactedNoteBody, Author: "ai:claude", OnBehalfOf: "human:ada",
		Source: board.SourceMCP, CreatedAt: created, EditedAt: &redactedAt,
		Redacted: &board.NoteRedaction{By: "human:root", Reason: "a secret", At: redactedAt}}
	if err := board.ValidateTransferredNote(note); err == nil {
		t.Fatalf("a note whose id names another time than its own was accepted")
	}
	ref, _ := board.ParseNoteID(id)
	note.CreatedAt = *ref.At
	note.EditedAt, note.Redacted.At = &redactedAt, redactedAt
	if err := board.ValidateTransferredNote(note); err != nil {
		t.Fatalf("the edited note does not validate: %v", err)
	}
	out, err := m.PutNote(f.ctx, note)
	wantPut(t, "an edited note", out, err, board.Added)
	out, err = m.PutNote(f.ctx, note)
	wantPut(t, "the same again", out, err, board.AlreadyThere)
	unredacted := note
	unredacted.Redacted = nil
	out, err = m.PutNote(f.ctx, unredacted)
	wantPut(t, "the note without its redaction", out, err, board.Collision)

	events := []board.Event{
		{ID: "ev-edit", Workspace: "inbox", TicketID: plan.Ticket.ID, Type: board.EventNoteEdited, NoteID: id, Fields: []string{"body"},
			Changes: []board.FieldChange{{Field: "body", Before: "teh", After: "the"}},
			Author:  "ai:claude", OnBehalfOf: "human:ada", Source: board.SourceMCP, RequestID: "e-1", At: edited},
		{ID: "ev-redact", Workspace: "inbox", TicketID: plan.Ticket.ID, Type: board.EventNoteRedacted, NoteID: id, Reason: "a secret",
			Author: "human:root", Source: board.SourceWeb, RequestID: "r-1", At: redactedAt},
	}
	for _, ev := range events {
		if err := board.ValidateTransferredEvent(ev); err != nil {
			t.Fatalf("event %s does not validate: %v", ev.ID, err)
		}
		out, err := m.PutEvent(f.ctx, ev)
		wantPut(t, ev.Type, out, err, board.Added)
	}
	var notes []board.Note
	if err := m.TransferNotes(f.ctx, "inbox", func(n board.Note) error { notes = append(notes, n); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !board.SameNote(notes[0], note) || notes[0].Redacted == nil || notes[0].OnBehalfOf != "human:ada" {
		t.Fatalf("exported notes %+v, want the edited, redacted note", notes)
	}
	var got []board.Event
	if err := m.TransferEvents(f.ctx, "inbox", func(e board.Event) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || !board.SameEvent(got[1], events[0]) || !board.SameEvent(got[2], events[1]) ||
		len(got[1].Changes) != 1 || got[1].Changes[0].Before != "teh" {
		t.Fatalf("exported events %+v, want the create, the edit with its text before, the redaction", got)
	}
}
