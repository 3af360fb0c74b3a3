//go:build !lambda

package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

// sweepEvery is how often the embedded store deletes expired request
// records (they answer nothing once expired; this frees their space).
const sweepEvery = 10 * time.Minute

// openSQLite opens the embedded store and starts its sweeper, which stops
// when the store closes or ctx ends. The Lambda build (-tags lambda) leaves it out:
// Lambda runs on DynamoDB only, and the SQLite engine is a quarter of the
// binary.
// An admin command's store (adminCommand) gets in between a running
// server's writes (sqlite.Options.Priority) and sweeps nothing: the
// server does that.
func openSQLite(ctx context.Context, dir string, log *slog.Logger, adminCommand bool) (openedStore, error) {
	s, err := sqlite.OpenDirWith(ctx, dir, sqlite.Options{Priority: adminCommand})
	if err != nil {
		return nil, err
	}
	if !adminCommand {
		go s.RunSweeper(ctx, sweepEvery, time.Now, log)
	}
	return s, nil
}

// sqliteFileName is the store's file inside LEDGER_DATA.
const sqliteFileName = sqlite.FileName

// backupResult is what a backup of the embedded store wrote.
type backupResult = sqlite.BackupResult

// backupSQLite copies the embedded store at path to dest (sqlite.Backup).
func backupSQLite(ctx context.Context, path, dest string) (backupResult, error) {
	return sqlite.Backup(ctx, path, dest)
}
