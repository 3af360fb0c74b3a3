package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/ticket-ledger/ticket-ledger/internal/boardfile"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/openingstore"
)

// servedStore is what a serving process hands out: each consumer gets its
// own contract of the one store (board.Store to the use cases, auth.Store to
// the accounts, oauth.Store to the authorization server). On Lambda it is
// the store being opened (internal/openingstore), which serves the same.
type servedStore = openingstore.Backend

// openedStore is a store as openStore opens it: what a server hands out,
// and the source and target of the commands that move a board
// (internal/boardfile). Both stores implement all of it.
type openedStore interface {
	servedStore
	boardfile.Source
	boardfile.Target
}

// openStore builds the store LEDGER_STORE names. early, if set, may get
// the store before it is open, for credential reads (internal/openingstore).
func openStore(ctx context.Context, cfg config, log *slog.Logger, early func(servedStore)) (openedStore, error) {
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
