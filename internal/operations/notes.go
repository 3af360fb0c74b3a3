package operations

import (
	"context"
	"net/http"
	"strconv"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A note is corrected by two operations, not one with a mode, because who
// may call them differs: editNote is every author's for their own notes,
// redactNote only an admin's, for anyone's (an agent never redacts).

// editNote replaces the text of the caller's own note.
func editNote() Operation {
	return define(Operation{Kind: Write,
		Tool: &Tool{Name: "edit_note", Title: "Edit note",
			Description: "Replace the text of a note you wrote (fix a typo, correct a finding) instead of adding another. Only the note's author may edit it: an agent is its name and the person it acts for. " +
				"note_id is the note's id from get_ticket or list_ticket_notes. The ticket's history keeps the earlier text (a note.edited event with the body before and after), and the note shows edited_at. A note is edited at most " + strconv.Itoa(board.MaxNoteEdits) + " times (then conflict: add a new note). A redacted note cannot be edited." + WriteNote},
		Route: &Route{Method: "PATCH", Pattern: "/notes/{id}", ID: "editNote", Status: 200, Path: map[string]string{"id": "note_id"}, Body: true,
			Problems:   []int{http.StatusForbidden, http.StatusNotFound, http.StatusConflict},
			MediaTypes: []string{"application/json", "application/merge-patch+json"},
			Summary:    "Edit your own note",
			Description: "Replaces the note's body (as edit_note). Only its author may: a person, or an agent acting for the same person it wrote the note for. " +
				"The ticket's history keeps the earlier text (a note.edited event with the body before and after); the note gains edited_at. Exactly once per Idempotency-Key; the same body again changes nothing. " +
				"A note is edited at most " + strconv.Itoa(board.MaxNoteEdits) + " times; a redacted note or one more edit is 409."}},
		func(s *board.Service) func(context.Context, board.EditNoteInput) (board.NoteResult, error) {
			return s.EditNote
		})
}

// redactNote replaces any note's text with a placeholder (admins).
func redactNote() Operation {
	return define(Operation{Kind: Write,
		Tool: &Tool{Name: "redact_note", Title: "Redact note",
			Description: "Replace any note's text with a placeholder and keep why (admins only; an agent is always refused). The note.redacted event keeps the reason, not the text, and the note's earlier note.edited events keep the placeholder instead of its earlier texts; a webhook already sent is not recalled." + WriteNote},
		Route: &Route{Method: "POST", Pattern: "/notes/{id}/redact", ID: "redactNote", Status: 200, Path: map[string]string{"id": "note_id"}, Body: true,
			Problems: []int{http.StatusForbidden, http.StatusNotFound},
			Summary:  "Redact a note (admins)",
			Description: "Replaces the note's body with \"" + board.RedactedNoteBody + "\" and keeps who redacted it, when and the reason (as redact_note). Admins only. " +
				"The note.redacted event keeps the reason, not the text; the note's earlier note.edited events keep the placeholder instead of its earlier texts (their ids, times and authors stay), and so do the stored answers of the calls that wrote them. Webhooks already sent are not recalled. Exactly once per Idempotency-Key; redacting a redacted note changes nothing."}},
		func(s *board.Service) func(context.Context, board.RedactNoteInput) (board.NoteResult, error) {
			return s.RedactNote
		})
}
