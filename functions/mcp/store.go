package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
)

// openStore builds the store LEDGER_STORE names. early, if set, may get
// the store before it is open, for credential reads (internal/openingstore).
func openStore(ctx context.Context, cfg config, log *slog.Logger, early func(board.Store)) (board.Store, error) {
	switch cfg.Store {
	case storeSQLite:
		return openSQLite(ctx, cfg.DataDir, log, cfg.adminCommand)
	case storeDynamoDB:
		ep := dynamo.Endpoint{URL: cfg.Endpoint, Table: cfg.Table, CreateTable: cfg.CreateTable, SerializeWrites: cfg.SerializeWrites,
			WordsByStream: cfg.WordsByStream}
		if early != nil {
			ep.Early = func(st *dynamo.Store) { early(st) }
		}
		return dynamo.Connect(ctx, ep, log)
	default:
		return nil, fmt.Errorf("LEDGER_STORE=%s is not available in this build", cfg.Store)
	}
}
