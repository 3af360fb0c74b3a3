package board

import "context"

// NoteStore finds one note where its id says it is (noteid.go).
type NoteStore interface {
	// GetNote returns the note ref names, or ErrNotFound. With ref.At set
	// it is one read of the note's key (ticket and time); with only
	// ref.TicketID, a read of that ticket's notes; with neither (an id
	// from before ids named their ticket), a store that keys notes by id
	// finds it and any other answers ErrNotFound. A note on a ticket other
	// than ref.TicketID is ErrNotFound.
	GetNote(ctx context.Context, ref NoteRef) (Note, error)
}
