package main

import (
	"context"
	"fmt"

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
	return c.runTablePass(ctx, tablePass{name: "backfill-claims", usage: backfillClaimsUsage,
		onSQLite: "whose claimable index the schema migration builds",
		run: func(ctx context.Context, ds *dynamo.Store, from dynamo.ReindexFrom, progress func(ws string, n int)) (string, error) {
			stats, err := ds.BackfillClaimable(ctx, from, progress)
			return fmt.Sprintf("backfilled the claimable index over %d tickets in %s: %d written, %d changed meanwhile and left as written",
				stats.Tickets, stats.Elapsed.Round(1e6), stats.Updated, stats.Changed), err
		}})
}
