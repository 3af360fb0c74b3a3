package board

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
)

// storeFailure turns an error that is not the caller's doing (a store that
// failed, a stored result that cannot be read) into what the caller may see:
// no internals, what to do next, and an error id; the log line carries the
// cause under the same id, so an operator can find it from what a user
// reports. Domain errors pass through with their own text, and a cancelled
// or timed-out call says its outcome is unknown and how to learn it.
func (s *Service) storeFailure(err error) error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return Errorf(CodeInternal, "the call was cancelled or ran out of time before its answer; it may or may not have been written. Call find_request with the same request_id to find out, or retry with the same request_id (never a new one)")
	}
	id := newErrorID()
	s.log.Error("internal error", "error_id", id, "err", err)
	out := Errorf(CodeInternal, "the server could not complete this call because of an internal problem (error id %s). "+
		"Retrying is safe: reads change nothing, and a write retried with the same request_id is never done twice "+
		"(call find_request first to see whether it was). If it keeps failing, give the error id to whoever runs this server", id)
	out.ErrorID, out.cause = id, err
	return out
}

// newErrorID is short enough to read out and random enough not to repeat.
func newErrorID() string {
	var b [6]byte
	_, _ = crand.Read(b[:])
	return "err-" + hex.EncodeToString(b[:])
}
