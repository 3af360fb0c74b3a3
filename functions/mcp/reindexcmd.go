package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
)

const reindexUsage = `usage:
  reindex-words [--from <ticket id>]
                   writes the search index's word items of every ticket of the DynamoDB
                   table (LEDGER_STORE=dynamodb), for tickets written before word search
                   or before Japanese, Chinese and Korean text was indexed by pairs of
                   characters, and deletes the items that earlier index made of such text;
                   safe while the server runs, and to run again. Workspaces go in slug
                   order, tickets newest first; --from resumes where a run stopped, as it
                   prints: at that ticket (<workspace>-0: at the workspace's newest), then
                   the workspaces after it. The SQLite store's schema migration rebuilds
                   its word index by itself.
`

// runReindexWords fills the DynamoDB word index from the tickets stored,
// prints each workspace's count and what it wrote, and where to resume
// when it stops.
func (c command) runReindexWords(ctx context.Context) int {
	var from dynamo.ReindexFrom
	switch {
	case len(c.args) == 1:
	case len(c.args) == 3 && c.args[1] == "--from":
		var err error
		if from, err = parseReindexFrom(c.args[2]); err != nil {
			fmt.Fprintf(c.stderr, "ticket-ledger: %v\n%s", err, reindexUsage)
			return exitUsage
		}
	default:
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
	stats, err := ds.ReindexWords(ctx, from, func(ws string, n int) { fmt.Fprintf(c.stdout, "%s\t%d tickets\n", ws, n) })
	fmt.Fprintf(c.stderr, "reindexed the words of %d tickets in %s: %d items written, %d items of the earlier index deleted\n",
		stats.Tickets, stats.Elapsed.Round(1e6), stats.Put, stats.Deleted)
	var stopped *dynamo.ReindexError
	if errors.As(err, &stopped) {
		fmt.Fprintf(c.stderr, "ticket-ledger: %v\nresume with: reindex-words --from %s-%d\n", stopped.Err, stopped.Resume.Workspace, stopped.Resume.Number)
		return exitFailed
	}
	if err != nil {
		return c.fail(err)
	}
	return exitOK
}

// parseReindexFrom reads --from: a ticket id, or <workspace>-0 for a
// workspace's newest.
func parseReindexFrom(s string) (dynamo.ReindexFrom, error) {
	ws, n, err := board.ParseTicketID(s)
	if err == nil {
		err = board.ValidateSlug(ws)
	}
	if err != nil || n < 0 {
		return dynamo.ReindexFrom{}, fmt.Errorf("--from %q is not a ticket id (as in inbox-1234, or inbox-0 for inbox's newest)", s)
	}
	return dynamo.ReindexFrom{Workspace: ws, Number: n}, nil
}
