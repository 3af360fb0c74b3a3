package openingstore

import (
	"context"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// ClaimCandidates is board.Store's, answered once the store is open.
func (s *Store) ClaimCandidates(ctx context.Context, q board.ClaimQuery) (board.ClaimCandidates, error) {
	return call(ctx, s.get, func(st Backend) (board.ClaimCandidates, error) { return st.ClaimCandidates(ctx, q) })
}
