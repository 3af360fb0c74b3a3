package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// The word index (search.go): one row per ticket in a contentless FTS5
// table, rowid = ws_key << ftsShift | number, so a workspace's tickets are
// one rowid range in number order. Its two columns hold the ticket's words
// as board.IndexWords gives them (ledger_words, words.go): title_words and
// other_words (tags, then body). The ascii tokenizer splits at the spaces
// and keeps every non-ASCII rune, so FTS5 sees exactly the words Go made;
// the prefix index serves type-ahead from two runes on.
const wordIndexSchema = `CREATE VIRTUAL TABLE ticket_words USING fts5(title_words, other_words,
	content='', contentless_delete=1, tokenize='ascii', prefix='2 3')`

// migrateWordSearch (3 → 4) replaces the trigram substring index by the
// word index, filled from the tickets stored, and the triggers that kept
// the trigram index by ones that keep the word index in every write's own
// transaction (a change of title, body or tags rewrites the ticket's row).
func migrateWordSearch(ctx context.Context, tx *sql.Tx) error {
	var plus, minus []string
	for _, st := range v1Statuses {
		c := countColumn(st)
		plus = append(plus, fmt.Sprintf("%s = %s + (new.status = '%s')", c, c, st))
		minus = append(minus, fmt.Sprintf("%s = %s - (old.status = '%s')", c, c, st))
	}
	rowid := func(row string) string {
		return fmt.Sprintf("((SELECT ws_key FROM workspaces WHERE slug = %s.workspace) << %d | %s.number)", row, ftsShift, row)
	}
	words := func(row string) string {
		return fmt.Sprintf("%[2]s(0, %[1]s.title, %[1]s.body, %[1]s.tags), %[2]s(1, %[1]s.title, %[1]s.body, %[1]s.tags)", row, wordsFunc)
	}
	stmts := []string{
		`DROP TRIGGER tickets_inserted`,
		`DROP TRIGGER tickets_retexted`,
		`DROP TRIGGER tickets_deleted`,
		`DROP TABLE tickets_fts`,
		wordIndexSchema,
		fmt.Sprintf(`INSERT INTO ticket_words (rowid, title_words, other_words) SELECT %s, %s FROM tickets t`, rowid("t"), words("t")),
		fmt.Sprintf(`CREATE TRIGGER tickets_inserted AFTER INSERT ON tickets BEGIN
		UPDATE workspaces SET %s WHERE slug = new.workspace;
		INSERT OR IGNORE INTO ticket_tags (workspace, tag, number) SELECT new.workspace, value, new.number FROM json_each(new.tags);
		INSERT INTO ticket_words (rowid, title_words, other_words) VALUES (%s, %s);
	END`, strings.Join(plus, ", "), rowid("new"), words("new")),
		fmt.Sprintf(`CREATE TRIGGER tickets_reworded AFTER UPDATE OF title, body, tags ON tickets
		WHEN old.title IS NOT new.title OR old.body IS NOT new.body OR old.tags IS NOT new.tags BEGIN
		DELETE FROM ticket_words WHERE rowid = %s;
		INSERT INTO ticket_words (rowid, title_words, other_words) VALUES (%s, %s);
	END`, rowid("old"), rowid("new"), words("new")),
		// Tickets are never deleted; if one ever is, nothing is left behind.
		fmt.Sprintf(`CREATE TRIGGER tickets_deleted AFTER DELETE ON tickets BEGIN
		UPDATE workspaces SET %s WHERE slug = old.workspace;
		DELETE FROM ticket_tags WHERE workspace = old.workspace AND number = old.number AND tag IN (SELECT value FROM json_each(old.tags));
		DELETE FROM ticket_words WHERE rowid = %s;
	END`, strings.Join(minus, ", "), rowid("old")),
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%w\n%s", err, q)
		}
	}
	return nil
}

// migrateCJKPairs (4 → 5) rebuilds the word index from the tickets stored:
// ledger_words now gives the runs of Japanese, Chinese and Korean text as
// their overlapping pairs of characters (board/cjk.go), where it gave a
// whole run as one word before. The triggers call the same function, so
// they need no change.
func migrateCJKPairs(ctx context.Context, tx *sql.Tx) error {
	stmts := []string{
		`INSERT INTO ticket_words (ticket_words) VALUES ('delete-all')`,
		fmt.Sprintf(`INSERT INTO ticket_words (rowid, title_words, other_words)
			SELECT (w.ws_key << %[1]d) | t.number, %[2]s(0, t.title, t.body, t.tags), %[2]s(1, t.title, t.body, t.tags)
			FROM tickets t JOIN workspaces w ON w.slug = t.workspace`, ftsShift, wordsFunc),
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%w\n%s", err, q)
		}
	}
	return nil
}
