package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
)

const backfillClaimsUsage = `usage:
  backfill-claims [--from <ticket id>]
                   gives every ticket of the DynamoDB table (LEDGER_STORE=dynamodb) the keys
                   of the claimable index that claim_next reads, for tickets written before
                   that index, as a write of the ticket would; safe while the server runs,
                   and to run again (a second run writes nothing). Workspaces go in slug
                   order, tickets newest first; --from resumes where a run stopped, as it
                   prints. The SQLite store's index is built by its schema migration.
`

// runBackfillClaims fills the DynamoDB claimable index from the tickets
// stored, prints each workspace's count and what it wrote, and where to
// resume when it stops.
func (c command) runBackfillClaims(ctx context.Context) int {
	var from dynamo.ReindexFrom
	switch {
	case len(c.args) == 1:
	case len(c.args) == 3 && c.args[1] == "--from":
		var err error
		if from, err = parseReindexFrom(c.args[2]); err != nil {
			fmt.Fprintf(c.stderr, "ticket-ledger: %v\n%s", err, backfillClaimsUsage)
			return exitUsage
		}
	default:
		fmt.Fprint(c.stderr, backfillClaimsUsage)
		return exitUsage
	}
	cfg, err := loadConfig(c.getenv)
	if err != nil {
		return c.fail(err)
	}
	if cfg.Store != storeDynamoDB {
		fmt.Fprintf(c.stderr, "ticket-ledger: backfill-claims is for the DynamoDB store; LEDGER_STORE is %s, whose claimable index the schema migration builds\n", cfg.Store)
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
	stats, err := ds.BackfillClaimable(ctx, from, func(ws string, n int) { fmt.Fprintf(c.stdout, "%s\t%d tickets\n", ws, n) })
	fmt.Fprintf(c.stderr, "backfilled the claimable index over %d tickets in %s: %d written, %d changed meanwhile and left as written\n",
		stats.Tickets, stats.Elapsed.Round(1e6), stats.Updated, stats.Changed)
	var stopped *dynamo.ReindexError
	if errors.As(err, &stopped) {
		fmt.Fprintf(c.stderr, "ticket-ledger: %v\nresume with: backfill-claims --from %s-%d\n", stopped.Err, stopped.Resume.Workspace, stopped.Resume.Number)
		return exitFailed
	}
	if err != nil {
		return c.fail(err)
	}
	return exitOK
}
