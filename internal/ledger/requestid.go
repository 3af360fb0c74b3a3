package ledger

import (
	"fmt"
	"strings"
)

// isRequestIDByte: [A-Za-z0-9._:-]. A loop rather than a regular
// expression: {1,128} compiles into a large program at package init.
func isRequestIDByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-'
}

// MaxRequestIDLength is the longest request_id accepted.
const MaxRequestIDLength = 128

// RequestIDChars are the characters a request_id may hold, as a regular
// expression character class body (isRequestIDByte is the same set).
const RequestIDChars = `A-Za-z0-9._:-`

// RequestIDPattern is a request_id as a regular expression, for schemas
// (the tools' request_id, REST's Idempotency-Key): built from the
// constants above so a schema cannot drift from ValidateRequestID.
var RequestIDPattern = fmt.Sprintf("^[%s]{1,%d}$", RequestIDChars, MaxRequestIDLength)

// ValidateRequestID checks the caller-chosen idempotency key. The message
// tells the caller how to pick a good one, since a model reads it.
func ValidateRequestID(id string) error {
	if id == "" {
		return fmt.Errorf("request_id is required: choose a new unique id for each new intent (for example a UUID) and reuse it only to retry the same call")
	}
	if len(id) > MaxRequestIDLength {
		return fmt.Errorf("request_id is %d characters long; the limit is %d", len(id), MaxRequestIDLength)
	}
	if strings.IndexFunc(id, func(r rune) bool { return r > 0x7f || !isRequestIDByte(byte(r)) }) >= 0 {
		return fmt.Errorf("request_id %q has characters outside ["+RequestIDChars+"]; use letters, digits and . _ : - only", id)
	}
	return nil
}
