package boardfile_test

import (
	"context"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// editOfFirstNote is the edit correctNotes makes, for a replay on a store
// the board was moved to.
func editOfFirstNote(t *testing.T, f *fixture) board.EditNoteInput {
	t.Helper()
	d, err := f.svc.GetTicket(f.as("human:ada", "", board.RoleAdmin), board.TicketIDInput{ID: "ops-1"})
	if err != nil || len(d.Notes) != 1 {
		t.Fatalf("ops-1's notes: %+v, %v", d.Notes, err)
	}
	return board.EditNoteInput{RequestID: "edit-1", NoteID: d.Notes[0].ID, Body: "a note <b>, corrected"}
}

// correctNotes edits the note of ops-1 as the agent that wrote it and,
// on a board of 3 tickets or more, has an admin redact the note of ops-3:
// a move carries notes as they stand and the events that keep their
// earlier text and the reason for a redaction.
func correctNotes(t *testing.T, f *fixture, n int) {
	t.Helper()
	agent := f.as("ai:alice", "human:ada", "")
	if _, err := f.svc.EditNote(agent, editOfFirstNote(t, f)); err != nil {
		t.Fatal(err)
	}
	if n < 3 {
		return
	}
	admin := f.as("human:ada", "", board.RoleAdmin)
	d, err := f.svc.GetTicket(admin, board.TicketIDInput{ID: "ops-3"})
	if err != nil || len(d.Notes) != 1 {
		t.Fatalf("ops-3's notes: %+v, %v", d.Notes, err)
	}
	if _, err := f.svc.RedactNote(admin, board.RedactNoteInput{RequestID: "redact-3", NoteID: d.Notes[0].ID, Reason: "not for this ticket"}); err != nil {
		t.Fatal(err)
	}
}

// checkNoteEditReplays: the edit made before the move replays on the
// store the board moved to, and the note there is the edited one.
func checkNoteEditReplays(t *testing.T, f *fixture) {
	t.Helper()
	var ctx context.Context = f.as("ai:alice", "human:ada", "")
	in := editOfFirstNote(t, f)
	res, err := f.svc.EditNote(ctx, in)
	if err != nil || !res.Replayed || res.Note.Body != in.Body || res.Note.EditedAt == nil {
		t.Fatalf("the edit again on %s: %+v, %v; want its first answer, replayed", f.be.Name, res, err)
	}
}
