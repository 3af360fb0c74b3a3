package rest

import (
	"encoding/json"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Every answer is at most board.MaxAnswerBytes, as on MCP: a result over
// the bound gives up entries (board.Fitter: the last tickets of a page, the
// oldest notes and events of a ticket) until it fits, and says where to
// continue (next_cursor, notes_cursor, history_cursor). REST sends the JSON
// once, so its cost is its length.

// boundedJSON encodes out (a pointer to the result), fitting it to the
// bound first when it is over.
func boundedJSON(out any) ([]byte, error) {
	return board.EncodeWithin(out, board.MaxAnswerBytes, json.Marshal, func(b []byte) int { return len(b) })
}
