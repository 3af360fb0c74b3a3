package ledger

import (
	"encoding/json"
	"time"
)

// LookupStatus is what find_request reports.
type LookupStatus string

const (
	LookupDone      LookupStatus = "done"
	LookupRunning   LookupStatus = "running"
	LookupAbandoned LookupStatus = "abandoned"
	LookupUnknown   LookupStatus = "unknown"
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
