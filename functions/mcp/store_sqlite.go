//go:build !lambda

package main

import (
	"context"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

// openSQLite opens the embedded store. The Lambda build (-tags lambda)
// leaves it out: Lambda runs on DynamoDB only, and the SQLite engine is a
// quarter of the binary.
func openSQLite(ctx context.Context, dir string) (board.Store, error) {
	return sqlite.OpenDir(ctx, dir)
}
