//go:build !nosqlite

package main

import (
	"context"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

// openSQLite opens the embedded store. The Lambda build leaves it out
// (-tags nosqlite): Lambda runs on DynamoDB only, and the SQLite engine is
// half the binary and a share of every cold start.
func openSQLite(ctx context.Context, dir string) (board.Store, error) {
	return sqlite.OpenDir(ctx, dir)
}
