// Package ledger holds the exactly-once rules shared by every write path:
// request_id validation, the canonical fingerprint of a call's arguments,
// request records with their retention, and how a stored record answers a
// retry (replay, mismatch, still running, abandoned).
//
// It knows nothing about tickets or storage; board uses it and every store
// persists its Record unchanged.
package ledger
