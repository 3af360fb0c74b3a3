package rest

import (
	"encoding/json"
	"fmt"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Every answer is at most board.MaxAnswerBytes, as on MCP: a result over
// the bound gives up entries (board.Fitter: the last tickets of a page, the
// oldest notes and events of a ticket) until it fits, and says where to
// continue (next_cursor, notes_cursor, history_cursor). REST sends the JSON
// once, so its cost is its length.

// fitSlack is how much tighter each further Fit aims, when the entries'
// costs added one by one were off from the whole.
const fitSlack = 8 << 10

func jsonSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return board.MaxAnswerBytes + 1 // cannot be sent: never fits
	}
	return len(b)
}

// boundedJSON encodes out (a pointer to the result), fitting it to the
// bound first when it is over.
func boundedJSON(out any) ([]byte, error) {
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	fitter, canFit := out.(board.Fitter)
	for attempt := 0; len(b) > board.MaxAnswerBytes; attempt++ {
		if !canFit || attempt == 3 || !fitter.Fit(jsonSize, board.MaxAnswerBytes-attempt*fitSlack) {
			return nil, fmt.Errorf("the answer would be %d bytes, over the bound of %d", len(b), board.MaxAnswerBytes)
		}
		if b, err = json.Marshal(out); err != nil {
			return nil, err
		}
	}
	return b, nil
}
