package openingstore

import (
	"context"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// GetNote is board.Store's, answered once the store is open.
func (s *Store) GetNote(ctx context.Context, ref board.NoteRef) (board.Note, error) {
	return call(ctx, s.get, func(st Backend) (board.Note, error) { return st.GetNote(ctx, ref) })
}
