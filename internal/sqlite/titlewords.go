package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"fmt"

	modernc "modernc.org/sqlite"
)

// The title-word table: one row per word of a ticket's title (the title
// tier of board.IndexWords, the words the word index's title_words
// column holds), keyed (workspace, word, number) like ticket_tags. From
// version 6 to 10 it served the similar-tickets lookup, kept by triggers in
// every write's own transaction. The mirror (similarmirror.go) answers
// that lookup from memory, built from the tickets' titles, so version 11
// drops the table: it was three of the thirty pages a create wrote.
// Version 6's migration stays as it was, so an older file still passes
// through every version.

// titleWordsFunc is ledger_title_words(title): the title's words as a
// JSON array, for json_each in the triggers.
const titleWordsFunc = "ledger_title_words"

func titleWordsJSON(_ *modernc.FunctionContext, args []driver.Value) (driver.Value, error) {
	title, _ := args[0].(string)
	words := lastWords.titleOf(title)
	if words == nil {
		words = []string{}
	}
	b, err := json.Marshal(words)
	return string(b), err
}

// migrateTitleWords (5 → 6) adds the title-word table, filled from the
// tickets stored, and the triggers that keep it.
func migrateTitleWords(ctx context.Context, tx *sql.Tx) error {
	words := func(row string) string {
		return fmt.Sprintf("SELECT %[1]s.workspace, value, %[1]s.number FROM json_each(%[2]s(%[1]s.title))", row, titleWordsFunc)
	}
	stmts := []string{
		`CREATE TABLE ticket_title_words (
			workspace TEXT NOT NULL,
			word      TEXT NOT NULL,
			number    INTEGER NOT NULL,
			PRIMARY KEY (workspace, word, number)
		) WITHOUT ROWID`,
		fmt.Sprintf(`INSERT OR IGNORE INTO ticket_title_words (workspace, word, number)
			SELECT t.workspace, j.value, t.number FROM tickets t, json_each(%s(t.title)) j`, titleWordsFunc),
		fmt.Sprintf(`CREATE TRIGGER tickets_titled AFTER INSERT ON tickets BEGIN
			INSERT OR IGNORE INTO ticket_title_words (workspace, word, number) %s;
		END`, words("new")),
		fmt.Sprintf(`CREATE TRIGGER tickets_retitled AFTER UPDATE OF title ON tickets WHEN old.title IS NOT new.title BEGIN
			DELETE FROM ticket_title_words WHERE workspace = old.workspace AND number = old.number
				AND word IN (SELECT value FROM json_each(%s(old.title)));
			INSERT OR IGNORE INTO ticket_title_words (workspace, word, number) %s;
		END`, titleWordsFunc, words("new")),
		// Tickets are never deleted; if one ever is, nothing is left behind.
		fmt.Sprintf(`CREATE TRIGGER tickets_untitled AFTER DELETE ON tickets BEGIN
			DELETE FROM ticket_title_words WHERE workspace = old.workspace AND number = old.number
				AND word IN (SELECT value FROM json_each(%s(old.title)));
		END`, titleWordsFunc),
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%w\n%s", err, q)
		}
	}
	return nil
}

// migrateDropTitleWords (10 → 11) drops the title-word table and its
// triggers. IF EXISTS: a file whose version was set back runs it again
// unharmed.
func migrateDropTitleWords(ctx context.Context, tx *sql.Tx) error {
	for _, q := range []string{
		`DROP TRIGGER IF EXISTS tickets_titled`,
		`DROP TRIGGER IF EXISTS tickets_retitled`,
		`DROP TRIGGER IF EXISTS tickets_untitled`,
		`DROP TABLE IF EXISTS ticket_title_words`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%w\n%s", err, q)
		}
	}
	return nil
}
