package ledger

import (
	"bytes"
	"encoding/json"
	"time"
)

// Key identifies a request record. It is scoped by principal, so one caller
// can neither replay nor probe another caller's results. The tool is not part
// of the key: a request_id names one intent, and reusing it for another tool
// is a mismatch, which also lets find_request look a record up by id alone.
type Key struct {
	Principal string `json:"principal"`
	RequestID string `json:"request_id"`
}

// Status of a request record.
type Status string

const (
	// StatusRunning marks work claimed under a lease (effects outside one
	// transaction). Writes that touch only the store never have this status.
	StatusRunning Status = "running"
	// StatusDone marks work whose result is stored.
	StatusDone Status = "done"
)

// Record is one entry of the idempotency ledger. Stores persist every field
// as is; only the rules in this package interpret them.
type Record struct {
	Key         Key             `json:"key"`
	Tool        string          `json:"tool"`
	Fingerprint string          `json:"fingerprint"`
	Args        json.RawMessage `json:"args"` // canonical JSON, kept to name differing fields
	Status      Status          `json:"status"`
	Result      json.RawMessage `json:"result,omitempty"`
	Owner       string          `json:"owner,omitempty"` // lease owner token
	LeaseUntil  time.Time       `json:"lease_until,omitzero"`
	CreatedAt   time.Time       `json:"created_at"`
	ExpiresAt   time.Time       `json:"expires_at"`
}

// Expired reports whether the record no longer counts. Every read and every
// write condition checks this logically; physical deletion (DynamoDB TTL,
// SQLite sweeps) only frees space and may lag.
func (r Record) Expired(now time.Time) bool {
	return !now.Before(r.ExpiresAt)
}

// LeaseExpired reports whether a running record's owner lost its lease, so
// the work may be taken over.
func (r Record) LeaseExpired(now time.Time) bool {
	return r.Status == StatusRunning && !now.Before(r.LeaseUntil)
}

// CompletedBy reports whether r is work owner completed with result: what a
// completion sent again after its answer was lost finds. Completing is
// fenced (the owner, a running record); this is the one way a repeat of it
// still succeeds.
func CompletedBy(r Record, owner string, result []byte) bool {
	return r.Status == StatusDone && owner != "" && r.Owner == owner && bytes.Equal(r.Result, result)
}
