package sqlite

import (
	"database/sql/driver"
	"encoding/json"
	"strings"
	"sync"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	modernc "modernc.org/sqlite"
)

// wordsFunc is ledger_words(part, title, body, tags): a ticket's search
// words as board.IndexWords gives them, space-separated, for the word
// index (searchschema.go); part 0 is the title's words, 1 the others
// (tags, then body). Go's tokenizer and case folding fill the index, so
// the words are exactly those the DynamoDB store indexes, and the index's
// own tokenizer (ascii) only splits them at the spaces.
const wordsFunc = "ledger_words"

var registerFunctions = sync.OnceValue(func() error {
	if err := modernc.RegisterDeterministicScalarFunction(titleWordsFunc, 1, titleWordsJSON); err != nil {
		return err
	}
	return modernc.RegisterDeterministicScalarFunction(wordsFunc, 4,
		func(_ *modernc.FunctionContext, args []driver.Value) (driver.Value, error) {
			part, _ := args[0].(int64)
			t := board.Ticket{}
			t.Title, _ = args[1].(string)
			t.Body, _ = args[2].(string)
			if tags, ok := args[3].(string); ok && tags != "" {
				// A tag list that is not JSON (never written by this
				// store) indexes no tag words rather than failing a write.
				_ = json.Unmarshal([]byte(tags), &t.Tags)
			}
			w := board.IndexWords(t)
			if part == 0 {
				return strings.Join(w.Title, " "), nil
			}
			return strings.Join(w.Other, " "), nil
		})
})
