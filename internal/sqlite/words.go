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
			title, _ := args[1].(string)
			body, _ := args[2].(string)
			tags, _ := args[3].(string)
			w := lastWords.of(title, body, tags)
			if part == 0 {
				return strings.Join(w.Title, " "), nil
			}
			return strings.Join(w.Other, " "), nil
		})
})

// lastWords keeps the words of the ticket text indexed last. A write of a
// ticket's text asks for them twice in one trigger (ledger_words for each
// of the word index's two columns, with the same title, body and tags),
// and board.IndexWords tokenizes and folds the whole text, body included:
// the second call takes the first one's answer. ledger_title_words (the
// migration to version 6 only, since) takes the title's words from it too
// when the title is the same.
var lastWords wordsMemo

type wordsMemo struct {
	mu                sync.Mutex
	valid             bool
	title, body, tags string
	words             board.TicketWords
}

// of is board.IndexWords of a ticket with this title, body and tags (the
// tags column's JSON). The answer is shared: callers only read it.
func (m *wordsMemo) of(title, body, tags string) board.TicketWords {
	m.mu.Lock()
	if m.valid && m.title == title && m.body == body && m.tags == tags {
		w := m.words
		m.mu.Unlock()
		return w
	}
	m.mu.Unlock()
	t := board.Ticket{Title: title, Body: body}
	if tags != "" {
		// A tag list that is not JSON (never written by this store)
		// indexes no tag words rather than failing a write.
		_ = json.Unmarshal([]byte(tags), &t.Tags)
	}
	w := board.IndexWords(t)
	m.mu.Lock()
	m.valid, m.title, m.body, m.tags, m.words = true, title, body, tags, w
	m.mu.Unlock()
	return w
}

// titleOf is the title tier of board.IndexWords for title, which depends
// on the title alone.
func (m *wordsMemo) titleOf(title string) []string {
	m.mu.Lock()
	if m.valid && m.title == title {
		w := m.words.Title
		m.mu.Unlock()
		return w
	}
	m.mu.Unlock()
	return board.IndexWords(board.Ticket{Title: title}).Title
}
