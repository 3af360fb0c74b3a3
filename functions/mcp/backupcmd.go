package main

import (
	"context"
	"fmt"
	"path/filepath"
)

const backupUsage = `usage:
  backup <file>    copies the local store (LEDGER_DATA/ledger.db) to <file> while the
                   server runs and writes; never overwrites. Restore: start a server
                   with LEDGER_DATA pointing at a folder holding the copy as ledger.db.
`

// runBackup makes a consistent copy of the SQLite store while a server may
// be using it, and prints what it wrote. A DynamoDB table is backed up by
// its point-in-time recovery instead (docs/backup.md).
func (c command) runBackup(ctx context.Context) int {
	if len(c.args) != 2 || c.args[1] == "" || c.args[1][0] == '-' {
		fmt.Fprint(c.stderr, backupUsage)
		return exitUsage
	}
	cfg, err := loadConfig(c.getenv)
	if err != nil {
		return c.fail(err)
	}
	if cfg.Store != storeSQLite {
		fmt.Fprintf(c.stderr, "ticket-ledger: backup copies the local SQLite store; LEDGER_STORE is %s: a DynamoDB table is backed up by its point-in-time recovery (see docs/backup.md)\n", cfg.Store)
		return exitFailed
	}
	res, err := backupSQLite(ctx, filepath.Join(cfg.DataDir, sqliteFileName), c.args[1])
	if err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.stdout, "%s\t%d bytes\t%d tickets\t%d workspaces\n", res.Path, res.Bytes, res.Tickets, res.Workspaces)
	return exitOK
}
