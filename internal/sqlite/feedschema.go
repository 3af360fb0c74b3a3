package sqlite

import (
	"context"
	"database/sql"
)

// The activity feed filters a workspace's events by author and by type.
// Both live only in the event's JSON, so the indexes are on expressions:
// a query names the same expression (feedAuthor, feedType) and SQLite walks
// the index in append order, as events_by_workspace does for the unfiltered
// feed. No column is added, so events written before this version are
// indexed the same way as new ones. A row whose data is not JSON (never
// written by this store) indexes as NULL instead of failing its write.
const (
	feedAuthor = `iif(json_valid(data), json_extract(data, '$.author'), NULL)`
	feedType   = `iif(json_valid(data), json_extract(data, '$.type'), NULL)`
)

// migrateEventFilters (2 → 3) adds the feed's indexes by author and by type.
func migrateEventFilters(ctx context.Context, tx *sql.Tx) error {
	for _, stmt := range []string{
		`CREATE INDEX events_by_author ON events (workspace, ` + feedAuthor + `, seq)`,
		`CREATE INDEX events_by_type ON events (workspace, ` + feedType + `, seq)`,
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return nil
}
