package board

import (
	"context"
	"errors"

	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// RedactedNoteBody is the text a redacted note shows instead of its own.
const RedactedNoteBody = "(redacted by an admin)"

// EditNoteInput replaces the text of one of the caller's own notes.
type EditNoteInput struct {
	RequestID string `json:"request_id" jsonschema:"idempotency key: a new unique id for each edit; after an error or lost connection call find_request, then retry with the same id and the same arguments"`
	NoteID    string `json:"note_id" jsonschema:"the note's id, as get_ticket or list_ticket_notes answer it"`
	Body      string `json:"body" jsonschema:"the note's new Markdown text, 1-10000 characters; it replaces the old text, which the ticket's history keeps"`
}

// RedactNoteInput replaces any note's text with a placeholder (admins).
type RedactNoteInput struct {
	RequestID string `json:"request_id" jsonschema:"idempotency key: a new unique id for each redaction"`
	NoteID    string `json:"note_id" jsonschema:"the note's id"`
	Reason    string `json:"reason" jsonschema:"why the text is taken away, 1-1000 characters; kept with the note and in the history"`
}

// Validate checks the edit before anything is read.
func (in *EditNoteInput) Validate() error {
	if _, err := ParseNoteID(in.NoteID); err != nil {
		return inField("note_id", err)
	}
	return inField("body", validateText("body", in.Body, 1, MaxNoteBody))
}

// Validate checks the redaction before anything is read.
func (in *RedactNoteInput) Validate() error {
	if _, err := ParseNoteID(in.NoteID); err != nil {
		return inField("note_id", err)
	}
	return inField("reason", validateText("reason", in.Reason, 1, MaxReason))
}

func noteNotFound(id string) *Error {
	return Errorf(CodeNotFound, "note '%s' not found; call get_ticket or list_ticket_notes to find note ids", clip(id))
}

// wroteIt reports whether p is the note's author: an agent is its name
// and the person it acts for, so "ai:claude for alice" may not edit what
// "ai:claude for bob" wrote. A note written before notes kept whom an
// agent wrote for has no on_behalf_of, so only its author acting for
// nobody may edit it (an admin can still redact it).
func (n Note) wroteIt(p Principal) bool {
	return p.Author != "" && n.Author == p.Author && n.OnBehalfOf == p.OnBehalfOf
}

// EditNote replaces the text of the caller's own note. The ticket's
// history keeps the earlier text (a note.edited event with the body
// before and after); the ticket's version moves, as with add_note. A note
// is edited at most MaxNoteEdits times.
func (s *Service) EditNote(ctx context.Context, in EditNoteInput) (NoteResult, error) {
	if err := in.Validate(); err != nil {
		return NoteResult{}, err
	}
	return s.changeNote(ctx, ToolEditNote, in.RequestID, in.NoteID, in, func(p Principal, n Note) (*Note, *Event, error) {
		if !n.wroteIt(p) {
			return nil, nil, Errorf(CodeForbidden, "only the note's author (%s) may edit note '%s'; add a new note to correct or answer it", DisplayAuthor(n.Author, n.OnBehalfOf), in.NoteID)
		}
		if n.Redacted != nil {
			return nil, nil, Errorf(CodeConflict, "note '%s' was redacted by an admin and cannot be edited; add a new note instead", in.NoteID)
		}
		if n.Body == in.Body {
			return nil, nil, nil // the same text: record the call, change nothing
		}
		after := n
		after.Body = in.Body
		ev := &Event{Type: EventNoteEdited, Fields: []string{"body"},
			Changes: []FieldChange{{Field: "body", Before: n.Body, After: in.Body}}}
		return &after, ev, nil
	})
}

// RedactNote replaces any note's text with RedactedNoteBody and keeps who
// did it, when and why (admins only). The note.redacted event keeps the
// reason, not the text, and the same write replaces the texts the note's
// earlier note.edited events kept by RedactedNoteBody (noteredaction.go),
// so the text is nowhere in the store after it.
func (s *Service) RedactNote(ctx context.Context, in RedactNoteInput) (NoteResult, error) {
	if err := in.Validate(); err != nil {
		return NoteResult{}, err
	}
	return s.changeNote(ctx, ToolRedactNote, in.RequestID, in.NoteID, in, func(p Principal, n Note) (*Note, *Event, error) {
		if !p.IsAdmin() {
			return nil, nil, Errorf(CodeForbidden, "only an admin may redact a note; the note's author may correct it with edit_note")
		}
		if n.Redacted != nil {
			return nil, nil, nil // already redacted: record the call, change nothing
		}
		after := n
		after.Body = RedactedNoteBody
		ev := &Event{Type: EventNoteRedacted, Reason: in.Reason}
		return &after, ev, nil
	})
}

// changeNote runs an edit of one note as a write on its ticket: the
// ticket's version orders it against every other write there, so two
// edits of one note never both apply to the same text. decide answers the
// note's new state and its event (nil, nil: nothing changes).
func (s *Service) changeNote(ctx context.Context, tool, requestID, noteID string, args any,
	decide func(p Principal, n Note) (*Note, *Event, error)) (NoteResult, error) {
	if err := ledger.ValidateRequestID(requestID); err != nil {
		return NoteResult{}, Errorf(CodeInvalid, "%s", err.Error())
	}
	ref, _ := ParseNoteID(noteID) // validated by the input
	if ref.TicketID == "" {
		// An id from before ids named their ticket: one read more, to
		// learn the ticket. A store that cannot find such an id by itself
		// answers not found.
		n, err := s.store.GetNote(ctx, ref)
		if errors.Is(err, ErrNotFound) {
			return NoteResult{}, noteNotFound(noteID)
		}
		if err != nil {
			return NoteResult{}, s.storeFailure(err)
		}
		ref.TicketID = n.TicketID
	}
	w, err := s.mutate(ctx, tool, requestID, ref.TicketID, args, func(p Principal, before Ticket, rec ledger.Record) (change, error) {
		n, err := s.store.GetNote(ctx, ref)
		if errors.Is(err, ErrNotFound) {
			return change{}, noteNotFound(noteID)
		}
		if err != nil {
			return change{}, s.storeFailure(err)
		}
		after, ev, err := decide(p, n)
		if err != nil {
			return change{}, err
		}
		shown := n
		ch := change{result: func(Ticket, *Note) any { return NoteResult{RequestID: requestID, Note: shown} }}
		if after == nil {
			return ch, nil
		}
		// The note's edits, read at the version this write commits on: a
		// later edit moves the ticket's version and this write retries.
		h, err := s.noteEvents(ctx, n)
		if err != nil {
			return change{}, s.storeFailure(err)
		}
		at := rec.CreatedAt
		after.EditedAt = &at
		switch ev.Type {
		case EventNoteEdited:
			if len(h.edits) >= MaxNoteEdits {
				return change{}, Errorf(CodeConflict, "note '%s' has been edited %d times, the most one note may be; add a new note to correct it", noteID, MaxNoteEdits)
			}
		case EventNoteRedacted:
			if len(h.edits) > MaxNoteEdits {
				// Only a note moved in from another board's file can have
				// more: its edits do not fit one write.
				return change{}, Errorf(CodeConflict, "note '%s' has %d edits, more than the %d one redaction rewrites (it came with an imported board); nothing was written", noteID, len(h.edits), MaxNoteEdits)
			}
			after.Redacted = &NoteRedaction{By: p.Author, Reason: ev.Reason, At: at}
			ch.scrubbed = scrubbedEdits(h.edits)
			if ch.scrubbedRequests, err = s.scrubbedRequests(ctx, n, h, at); err != nil {
				return change{}, s.storeFailure(err)
			}
		}
		shown = *after
		ticket := before
		ticket.Version = before.Version + 1
		ticket.UpdatedAt = at
		ev.ID, ev.Workspace, ev.TicketID, ev.Title, ev.NoteID = s.newID(), before.Workspace, before.ID, before.Title, n.ID
		ev.Author, ev.OnBehalfOf, ev.Source, ev.RequestID, ev.At = p.Author, p.OnBehalfOf, p.Source, requestID, at
		ch.after, ch.edited, ch.event = &ticket, after, ev
		return ch, nil
	})
	if ErrorCode(err) == CodeNotFound {
		// The ticket's own not-found (a hidden workspace included) names
		// the note the caller asked for, and nothing of where it was.
		return NoteResult{}, noteNotFound(noteID)
	}
	if err != nil {
		return NoteResult{}, err
	}
	return answer[NoteResult](s, w)
}

// noteEvent reports whether events of type typ name a note.
func noteEvent(typ string) bool {
	return typ == EventNoteAdded || typ == EventNoteEdited || typ == EventNoteRedacted
}
