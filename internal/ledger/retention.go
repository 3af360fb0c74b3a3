package ledger

import (
	"fmt"
	"time"
)

const (
	// DefaultRetention keeps records well past the ~30 minute window in
	// which clients retry.
	DefaultRetention = 24 * time.Hour
	// MinRetention is the floor: shorter would let a slow retry run twice.
	MinRetention = time.Hour
)

// CheckRetention refuses a retention below MinRetention.
func CheckRetention(d time.Duration) error {
	if d < MinRetention {
		return fmt.Errorf("request retention %s is below the minimum of %s: retried calls could run twice", d, MinRetention)
	}
	return nil
}

// NewRecord builds the record of a call about to commit.
func NewRecord(key Key, tool string, canonicalArgs []byte, now time.Time, retention time.Duration) Record {
	return Record{
		Key:         key,
		Tool:        tool,
		Fingerprint: Fingerprint(canonicalArgs),
		Args:        canonicalArgs,
		Status:      StatusDone,
		CreatedAt:   now,
		ExpiresAt:   now.Add(retention),
	}
}
