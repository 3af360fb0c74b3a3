package mcpserver

import (
	"encoding/json"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Every answer is at most board.MaxAnswerBytes on the wire, both copies of
// the result included: the structured content and the same JSON as text,
// which clients that do not read structured content (and the models behind
// them) depend on, so it is kept whole rather than shortened. A result over
// the bound gives up entries (board.Fitter) until it fits, and says where
// to continue; the largest single ticket the board allows fits on its own
// (TestLargestAnswersFit).

// envelopeReserve is left for the JSON-RPC envelope around the result:
// jsonrpc, id, the content array and its keys.
const envelopeReserve = 4 << 10

// answerBound is what the result's two copies may cost together.
const answerBound = board.MaxAnswerBytes - envelopeReserve

// answerCost is what JSON b costs in an answer: itself as structured
// content, and itself again as a JSON string in the text content, where
// every quote and backslash gains a backslash. (b comes from
// encoding/json, so it holds no raw control character, <, > or &, which
// would cost more as a string.)
func answerCost(b string) int {
	return 2*len(b) + strings.Count(b, `"`) + strings.Count(b, `\`) + 2
}

// encode is json.Marshal into a string, without copying it out of a
// []byte: the text content of an answer holds it as it is. An answer that
// carries its JSON already (a create's, encoded for its request record)
// is not encoded again.
func encode(v any) (string, error) {
	if e, ok := v.(interface{ Encoded() []byte }); ok {
		if b := e.Encoded(); b != nil {
			return string(b), nil
		}
	}
	var sb strings.Builder
	if err := json.NewEncoder(&sb).Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(sb.String(), "\n"), nil
}

// boundedJSON encodes a tool's output (out points to it), fitting it to
// the answer bound, less reserved bytes (content the answer carries beside
// the result's two copies), first when it is over.
func boundedJSON(out any, reserved int) (string, error) {
	return board.EncodeWithin(out, answerBound-reserved, encode, answerCost)
}
