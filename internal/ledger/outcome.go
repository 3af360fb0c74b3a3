package ledger

import (
	"fmt"
	"strings"
	"time"
)

// ExistsError is returned by a store when a write finds an unexpired record
// under its key. It carries that record, so the caller can decide between
// replay and mismatch without reading it again.
type ExistsError struct {
	Record Record
}

// Error names the request_id whose record was found.
func (e *ExistsError) Error() string {
	return fmt.Sprintf("request_id %q already has a record", e.Record.Key.RequestID)
}

// Verdict is what a retry that found an existing record should do.
type Verdict int

const (
	// Replay: same tool, same arguments, result stored: return it.
	Replay Verdict = iota
	// Mismatch: the id was used for other arguments or another tool.
	Mismatch
	// InProgress: the first call is still running under its lease.
	InProgress
	// Abandoned: the first call's lease expired without a result.
	Abandoned
)

// Judge compares an existing record with a new call.
func Judge(existing Record, tool, fingerprint string, now time.Time) Verdict {
	if existing.Tool != tool || existing.Fingerprint != fingerprint {
		return Mismatch
	}
	if existing.Status == StatusDone {
		return Replay
	}
	if existing.LeaseExpired(now) {
		return Abandoned
	}
	return InProgress
}

// MismatchMessage explains a reused request_id, naming what differs.
func MismatchMessage(existing Record, tool string, newArgs []byte) string {
	id := existing.Key.RequestID
	if existing.Tool != tool {
		return fmt.Sprintf("request_id %q was already used for %s, not %s; nothing was written. Use a new request_id for a new intent, or call find_request to see the earlier result", id, existing.Tool, tool)
	}
	fields, err := DiffFields(existing.Args, newArgs)
	if err != nil || len(fields) == 0 {
		return fmt.Sprintf("request_id %q was already used with different arguments; nothing was written. Use a new request_id for a new intent, or retry with exactly the earlier arguments", id)
	}
	return fmt.Sprintf("request_id %q was already used with different arguments (differing fields: %s); nothing was written. Use a new request_id for a new intent, or retry with exactly the earlier arguments (call find_request to see them)", id, strings.Join(fields, ", "))
}
