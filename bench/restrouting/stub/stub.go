// Package stub is what both routers serve in the benchmark: a service over
// a store that lists the seeded workspaces and an empty page of tickets, so
// the measured requests do the same work behind either router.
package stub

import (
	"context"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

type store struct{ board.Store }

func (store) ListWorkspaces(context.Context) ([]board.Workspace, error) {
	return board.DefaultWorkspaces(), nil
}

func (store) ListTickets(context.Context, board.TicketQuery) (board.TicketPage, error) {
	return board.TicketPage{Policy: board.PolicyReadWrite}, nil
}

// Service answers those two reads; every other use case is unused.
func Service() *board.Service {
	svc, err := board.NewService(board.Config{Store: store{}})
	if err != nil {
		panic(err)
	}
	return svc
}
