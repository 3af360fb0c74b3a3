package board

import (
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// A note's id names where it is kept, so any store finds it with one read:
// "<ticket id>~<created_at as base-36 Unix nanoseconds>~<UUIDv7>", e.g.
// "inbox-21~dndq5o46huy7~019aef3c-6d2b-7c41-9a55-0c1f2e3d4b5a". The
// ticket is the partition its notes live in and the time is their order in
// it (DynamoDB keys a note by both); the UUIDv7, made in order, orders
// notes written at the same instant as they were written, as the bare
// UUIDv7 ids before them did.
//
// Notes written before ids named their ticket have a bare UUID. They keep
// working: a store that keys notes by id alone (SQLite) finds them as they
// are, and every store finds "<ticket id>~<uuid>" (the note's ticket_id
// joined to its id), reading that ticket's notes.
const noteIDSeparator = "~"

// NoteRef is where a note id says a note is.
type NoteRef struct {
	// ID is the note's id as stored.
	ID string
	// TicketID is the note's ticket; empty for a bare UUID, which only a
	// store keyed by note id can find.
	TicketID string
	// At is the note's created_at, when the id names it (exact to the
	// nanosecond): with TicketID that is the note's key.
	At *time.Time
}

// newNoteID is the id of a note written on ticketID at at; unique is a
// new UUIDv7.
func newNoteID(ticketID string, at time.Time, unique string) string {
	return ticketID + noteIDSeparator + strconv.FormatInt(at.UnixNano(), 36) + noteIDSeparator + unique
}

// ParseNoteID says where the note with id is, or an invalid error naming
// what a note id looks like.
func ParseNoteID(id string) (NoteRef, error) {
	bad := func() (NoteRef, error) {
		return NoteRef{}, invalid("note id %q is not a note id; call get_ticket or list_ticket_notes and copy a note's id", clip(id))
	}
	if id == "" {
		return NoteRef{}, invalid("note_id is required; call get_ticket or list_ticket_notes to find note ids")
	}
	parts := strings.Split(id, noteIDSeparator)
	switch len(parts) {
	case 1: // a bare UUID from before ids named their ticket
		if !isUUID(id) {
			return bad()
		}
		return NoteRef{ID: id}, nil
	case 2: // "<ticket id>~<uuid>": an earlier note with its ticket
		if _, _, err := ParseTicketID(parts[0]); err != nil || !isUUID(parts[1]) {
			return bad()
		}
		return NoteRef{ID: parts[1], TicketID: parts[0]}, nil
	case 3:
		if _, _, err := ParseTicketID(parts[0]); err != nil || !isUUID(parts[2]) {
			return bad()
		}
		nanos, err := strconv.ParseInt(parts[1], 36, 64)
		if err != nil || nanos < 0 {
			return bad()
		}
		at := time.Unix(0, nanos).UTC()
		return NoteRef{ID: id, TicketID: parts[0], At: &at}, nil
	}
	return bad()
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}
