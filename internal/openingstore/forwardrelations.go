package openingstore

import (
	"context"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// ReadRelations is board.Store's, answered once the store is open.
func (s *Store) ReadRelations(ctx context.Context, id string) (board.Relations, error) {
	return call(ctx, s.get, func(st Backend) (board.Relations, error) { return st.ReadRelations(ctx, id) })
}

// RelationsOf is board.Store's, answered once the store is open.
func (s *Store) RelationsOf(ctx context.Context, t board.Ticket) (board.Relations, error) {
	return call(ctx, s.get, func(st Backend) (board.Relations, error) { return st.RelationsOf(ctx, t) })
}

// SaveRelation is board.Store's, answered once the store is open.
func (s *Store) SaveRelation(ctx context.Context, tx board.RelationTx) (ledger.Record, error) {
	return call(ctx, s.get, func(st Backend) (ledger.Record, error) { return st.SaveRelation(ctx, tx) })
}
