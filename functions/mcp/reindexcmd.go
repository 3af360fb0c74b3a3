package main

import (
	"context"
	"fmt"

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
	return c.runTablePass(ctx, tablePass{name: "reindex-words", usage: reindexUsage,
		onSQLite: "whose word index the schema migration fills when the file is opened",
		run: func(ctx context.Context, ds *dynamo.Store, from dynamo.ReindexFrom, progress func(ws string, n int)) (string, error) {
			stats, err := ds.ReindexWords(ctx, from, progress)
			return fmt.Sprintf("reindexed the words of %d tickets in %s: %d items written, %d items of the earlier index deleted",
				stats.Tickets, stats.Elapsed.Round(1e6), stats.Put, stats.Deleted), err
		}})
}
