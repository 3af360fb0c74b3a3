package ledger

import (
	"fmt"
	"regexp"
)

var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// MaxRequestIDLength is the longest request_id accepted.
const MaxRequestIDLength = 128

// ValidateRequestID checks the caller-chosen idempotency key. The message
// tells the caller how to pick a good one, since a model reads it.
func ValidateRequestID(id string) error {
	if id == "" {
		return fmt.Errorf("request_id is required: choose a new unique id for each new intent (for example a UUID) and reuse it only to retry the same call")
	}
	if len(id) > MaxRequestIDLength {
		return fmt.Errorf("request_id is %d characters long; the limit is %d", len(id), MaxRequestIDLength)
	}
	if !requestIDPattern.MatchString(id) {
		return fmt.Errorf("request_id %q has characters outside [A-Za-z0-9._:-]; use letters, digits and . _ : - only", id)
	}
	return nil
}
