package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A file's schema version is its user_version. Version 0 is `schema` as the
// first release created it; every migration below moves a file one version
// up, in one transaction, so a file is always at some version and never
// between two. A new file is created at version 0 and migrated like any
// other, so every open runs the same code.

// migrations[i] moves a file from version i to i+1.
var migrations = []func(ctx context.Context, tx *sql.Tx) error{
	migrateBoundedReads,
	migrateCreatedFor,
	migrateEventFilters,
	migrateWordSearch,
	migrateCJKPairs,
	migrateTitleWords,
	migrateClaims,
	migrateNoteEdits,
	migrateRelations,
	migrateInbox,
	migrateDropTitleWords,
}

// schemaVersion is the version this code reads and writes.
var schemaVersion = len(migrations)

func (s *Store) migrate(ctx context.Context) error {
	var tables int
	if err := s.write.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master`).Scan(&tables); err != nil {
		return err
	}
	if tables == 0 {
		// Only a file without tables can take auto_vacuum without a VACUUM.
		if _, err := s.write.ExecContext(ctx, `PRAGMA auto_vacuum = INCREMENTAL`); err != nil {
			return err
		}
	}
	if _, err := s.write.ExecContext(ctx, schema); err != nil {
		return err
	}
	// People's and API tokens' tables are created where missing on every
	// open, as they are (peopleschema.go); they are no part of the
	// versions below.
	if _, err := s.write.ExecContext(ctx, peopleSchema); err != nil {
		return err
	}
	if err := s.addPeopleColumns(ctx); err != nil {
		return err
	}
	if _, err := s.write.ExecContext(ctx, tokenSchema); err != nil {
		return err
	}
	// So are the tasks' tables (tasks.go).
	if err := s.migrateTasks(ctx); err != nil {
		return err
	}
	// So are OAuth's (peopleschema.go).
	if _, err := s.write.ExecContext(ctx, oauthSchema); err != nil {
		return err
	}
	// So are the server's secrets (secrets.go).
	if _, err := s.write.ExecContext(ctx, secretSchema); err != nil {
		return err
	}
	// So are webhooks' (webhooks.go).
	if _, err := s.write.ExecContext(ctx, webhookSchema); err != nil {
		return err
	}
	var version int
	if err := s.write.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return err
	}
	if version > schemaVersion {
		return fmt.Errorf("the file is at schema version %d, newer than this program (version %d): run a newer ticket-ledger", version, schemaVersion)
	}
	for v := version; v < schemaVersion; v++ {
		if err := s.migrateOne(ctx, v); err != nil {
			return fmt.Errorf("migrating from schema version %d: %w", v, err)
		}
	}
	for _, w := range board.DefaultWorkspaces() {
		if _, err := s.write.ExecContext(ctx,
			`INSERT INTO workspaces (slug, name, ai_policy) VALUES (?, ?, ?) ON CONFLICT (slug) DO NOTHING`,
			w.Slug, w.Name, string(w.AIPolicy)); err != nil {
			return err
		}
	}
	return s.ensureIncrementalVacuum(ctx)
}

func (s *Store) migrateOne(ctx context.Context, from int) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := migrations[from](ctx, tx); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, from+1)); err != nil {
		return err
	}
	return tx.Commit()
}

// ensureIncrementalVacuum turns a file created before the sweeper existed
// into one whose freed pages can be given back (auto_vacuum INCREMENTAL).
// That takes one VACUUM, which rewrites the file: once, on the first open by
// this version.
func (s *Store) ensureIncrementalVacuum(ctx context.Context) error {
	var mode int
	if err := s.write.QueryRowContext(ctx, `PRAGMA auto_vacuum`).Scan(&mode); err != nil {
		return err
	}
	const incremental = 2
	if mode == incremental {
		return nil
	}
	if _, err := s.write.ExecContext(ctx, `PRAGMA auto_vacuum = INCREMENTAL`); err != nil {
		return err
	}
	_, err := s.write.ExecContext(ctx, `VACUUM`)
	return err
}

// v1Statuses are the statuses version 1's counting triggers know. A status
// added later needs a migration that adds its column and recreates them.
var v1Statuses = []board.Status{board.StatusCandidate, board.StatusDoing, board.StatusWaitingHuman,
	board.StatusWaitingAI, board.StatusDone, board.StatusHold}

// countColumn names a workspace's count of tickets in status st.
func countColumn(st board.Status) string { return "n_" + string(st) }

// ftsShift places a workspace's tickets in their own range of the search
// index's rowids: rowid = ws_key << ftsShift | number. A workspace's matches
// are then one rowid range, in ticket-number order (ticket numbers stay
// below 2^40).
const ftsShift = 40

// migrateBoundedReads (0 → 1) adds what keeps reads bounded at any size
// (docs/decisions.md, "Reading"): status counts kept in the workspace row,
// indexes for owner and open due dates, a tag index, a trigram full-text
// index of titles and bodies, and the triggers that keep all of them in step
// with the tickets inside every write's own transaction. It fills each from
// the tickets already stored, and drops search_text, which the full-text
// index replaces.
func migrateBoundedReads(ctx context.Context, tx *sql.Tx) error {
	var stmts []string
	add := func(format string, args ...any) { stmts = append(stmts, fmt.Sprintf(format, args...)) }

	// Counts, computed once here, then kept by triggers.
	var plus, minus, move, fill []string
	for _, st := range v1Statuses {
		c := countColumn(st)
		add(`ALTER TABLE workspaces ADD COLUMN %s INTEGER NOT NULL DEFAULT 0`, c)
		plus = append(plus, fmt.Sprintf("%s = %s + (new.status = '%s')", c, c, st))
		minus = append(minus, fmt.Sprintf("%s = %s - (old.status = '%s')", c, c, st))
		move = append(move, fmt.Sprintf("%s = %s + (new.status = '%s') - (old.status = '%s')", c, c, st, st))
		fill = append(fill, fmt.Sprintf("%s = (SELECT count(*) FROM tickets t WHERE t.workspace = workspaces.slug AND t.status = '%s')", c, st))
	}
	add(`UPDATE workspaces SET %s`, strings.Join(fill, ", "))

	// A stable key per workspace for the search index's rowids (a rowid of
	// a table without an INTEGER PRIMARY KEY may change on VACUUM).
	add(`ALTER TABLE workspaces ADD COLUMN ws_key INTEGER`)
	add(`UPDATE workspaces SET ws_key = rowid`)
	add(`CREATE UNIQUE INDEX workspaces_by_key ON workspaces (ws_key)`)
	add(`CREATE TRIGGER workspaces_key AFTER INSERT ON workspaces WHEN new.ws_key IS NULL BEGIN
		UPDATE workspaces SET ws_key = (SELECT coalesce(max(ws_key), 0) + 1 FROM workspaces) WHERE slug = new.slug;
	END`)

	add(`CREATE INDEX tickets_by_owner ON tickets (workspace, owner, number)`)
	// Notes page by (created_at, id), the order DynamoDB keeps them in.
	add(`DROP INDEX notes_by_ticket`)
	add(`CREATE INDEX notes_by_ticket ON notes (ticket_id, created_at, id)`)
	add(`CREATE INDEX tickets_open_due ON tickets (workspace, due, number) WHERE due IS NOT NULL AND status <> 'done'`)

	add(`CREATE TABLE ticket_tags (
		workspace TEXT NOT NULL,
		tag       TEXT NOT NULL,
		number    INTEGER NOT NULL,
		PRIMARY KEY (workspace, tag, number)
	) WITHOUT ROWID`)
	add(`INSERT OR IGNORE INTO ticket_tags (workspace, tag, number) SELECT t.workspace, j.value, t.number FROM tickets t, json_each(t.tags) j`)

	// Contentless: the index keeps no copy of the text, only trigrams.
	add(`CREATE VIRTUAL TABLE tickets_fts USING fts5(title, body, content='', contentless_delete=1, tokenize='trigram')`)
	ftsRowid := func(row string) string {
		return fmt.Sprintf("((SELECT ws_key FROM workspaces WHERE slug = %s.workspace) << %d | %s.number)", row, ftsShift, row)
	}
	add(`INSERT INTO tickets_fts (rowid, title, body) SELECT %s, t.title, t.body FROM tickets t`, ftsRowid("t"))

	add(`CREATE TRIGGER tickets_inserted AFTER INSERT ON tickets BEGIN
		UPDATE workspaces SET %s WHERE slug = new.workspace;
		INSERT OR IGNORE INTO ticket_tags (workspace, tag, number) SELECT new.workspace, value, new.number FROM json_each(new.tags);
		INSERT INTO tickets_fts (rowid, title, body) VALUES (%s, new.title, new.body);
	END`, strings.Join(plus, ", "), ftsRowid("new"))
	add(`CREATE TRIGGER tickets_moved AFTER UPDATE OF status ON tickets WHEN old.status IS NOT new.status BEGIN
		UPDATE workspaces SET %s WHERE slug = new.workspace;
	END`, strings.Join(move, ", "))
	add(`CREATE TRIGGER tickets_retagged AFTER UPDATE OF tags ON tickets WHEN old.tags IS NOT new.tags BEGIN
		DELETE FROM ticket_tags WHERE workspace = old.workspace AND number = old.number AND tag IN (SELECT value FROM json_each(old.tags));
		INSERT OR IGNORE INTO ticket_tags (workspace, tag, number) SELECT new.workspace, value, new.number FROM json_each(new.tags);
	END`)
	add(`CREATE TRIGGER tickets_retexted AFTER UPDATE OF title, body ON tickets WHEN old.title IS NOT new.title OR old.body IS NOT new.body BEGIN
		DELETE FROM tickets_fts WHERE rowid = %s;
		INSERT INTO tickets_fts (rowid, title, body) VALUES (%s, new.title, new.body);
	END`, ftsRowid("old"), ftsRowid("new"))
	// Tickets are never deleted; if one ever is, nothing is left behind.
	add(`CREATE TRIGGER tickets_deleted AFTER DELETE ON tickets BEGIN
		UPDATE workspaces SET %s WHERE slug = old.workspace;
		DELETE FROM ticket_tags WHERE workspace = old.workspace AND number = old.number AND tag IN (SELECT value FROM json_each(old.tags));
		DELETE FROM tickets_fts WHERE rowid = %s;
	END`, strings.Join(minus, ", "), ftsRowid("old"))

	add(`ALTER TABLE tickets DROP COLUMN search_text`)

	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%w\n%s", err, q)
		}
	}
	return nil
}

// addPeopleColumns adds peopleColumnsAdded where a file lacks them.
func (s *Store) addPeopleColumns(ctx context.Context) error {
	have := map[string]bool{}
	rows, err := s.write.QueryContext(ctx, `SELECT name FROM pragma_table_info('people')`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return err
		}
		have[name] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, c := range peopleColumnsAdded {
		if !have[c.name] {
			if _, err := s.write.ExecContext(ctx, `ALTER TABLE people ADD COLUMN `+c.name+` `+c.def); err != nil {
				return err
			}
		}
	}
	return nil
}

// migrateCreatedFor (1 → 2) keeps whom an agent created a ticket for, so a
// card can say "for alice" without reading the ticket's history. Tickets
// created before it have none recorded (their creation event still has it).
func migrateCreatedFor(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `ALTER TABLE tickets ADD COLUMN created_for TEXT NOT NULL DEFAULT ''`)
	return err
}
