package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
)

const reindexUsage = `usage:
  reindex-words    writes the search index's word items of every ticket of the DynamoDB
                   table (LEDGER_STORE=dynamodb), for tickets written before word search;
                   safe while the server runs, and to run again. The SQLite store's
                   schema migration fills its word index by itself.
`

// runReindexWords fills the DynamoDB word index from the tickets stored
// and prints each workspace's count.
func (c command) runReindexWords(ctx context.Context) int {
	if len(c.args) != 1 {
		fmt.Fprint(c.stderr, reindexUsage)
		return exitUsage
	}
	cfg, err := loadConfig(c.getenv)
	if err != nil {
		return c.fail(err)
	}
	if cfg.Store != storeDynamoDB {
		fmt.Fprintf(c.stderr, "ticket-ledger: reindex-words is for the DynamoDB store; LEDGER_STORE is %s, whose word index the schema migration fills when the file is opened\n", cfg.Store)
		return exitFailed
	}
	cfg.adminCommand = true
	st, err := openStore(ctx, cfg, slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})), nil)
	if err != nil {
		return c.fail(err)
	}
	defer st.Close()
	ds, ok := st.(*dynamo.Store)
	if !ok {
		return c.fail(fmt.Errorf("the DynamoDB store is a %T", st))
	}
	total, err := ds.ReindexWords(ctx, func(ws string, n int) { fmt.Fprintf(c.stdout, "%s\t%d tickets\n", ws, n) })
	if err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.stderr, "reindexed the words of %d tickets\n", total)
	return exitOK
}
