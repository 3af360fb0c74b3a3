package ledger

import (
	"encoding/json"
	"time"
)

// LookupStatus is what find_request reports.
type LookupStatus string

const (
	// LookupDone: the call finished; Result is its answer.
	LookupDone LookupStatus = "done"
	// LookupRunning: the call is still at work under a live lease; ask
	// again later.
	LookupRunning LookupStatus = "running"
	// LookupAbandoned: the call began but its lease ran out before it
	// finished; a retry with the same request_id takes it over.
	LookupAbandoned LookupStatus = "abandoned"
	// LookupUnknown: no record, or one past retention: the request_id is
	// free, and a retry runs the call afresh.
	LookupUnknown LookupStatus = "unknown"
)

// Lookup is the answer to find_request.
type Lookup struct {
	RequestID string          `json:"request_id"`
	Status    LookupStatus    `json:"status"`
	Tool      string          `json:"tool,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
}

// Describe turns a record (nil when none was found) into a Lookup. An
// expired record is unknown: past retention the id is free again.
func Describe(requestID string, rec *Record, now time.Time) Lookup {
	l := Lookup{RequestID: requestID, Status: LookupUnknown}
	if rec == nil || rec.Expired(now) {
		return l
	}
	l.Tool = rec.Tool
	switch {
	case rec.Status == StatusDone:
		l.Status = LookupDone
		l.Result = rec.Result
	case rec.LeaseExpired(now):
		l.Status = LookupAbandoned
	default:
		l.Status = LookupRunning
	}
	return l
}
