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
// column holds), keyed (workspace, word, number) like ticket_tags. It
// serves the similar-tickets lookup, which runs on every create and asks,
// per title word, for the newest numbers only: a seek and a short walk of
// one B-tree, where the same question to FTS5 seeks every segment of the
// word index and decodes the word's list. Triggers keep it in every
// write's own transaction, as they keep the word index.

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
