//go:build lambda

package main

import (
	"context"
	"errors"
	"log/slog"
)

func openSQLite(context.Context, string, *slog.Logger, bool) (openedStore, error) {
	return nil, errors.New("this build has no embedded store (built with -tags lambda, for Lambda); use LEDGER_STORE=dynamodb or build without the tag")
}

// sqliteFileName names the embedded store's file, which this build lacks.
const sqliteFileName = "ledger.db"

// backupResult is what a backup wrote; this build makes none.
type backupResult struct {
	Path                string
	Bytes               int64
	Tickets, Workspaces int
}

// backupSQLite refuses: this build has no embedded store.
func backupSQLite(context.Context, string, string) (backupResult, error) {
	return backupResult{}, errors.New("this build has no embedded store (built with -tags lambda); run backup with the local build")
}
