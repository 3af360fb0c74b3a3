package board

import (
	"errors"
	"fmt"
)

// Code classifies a domain error so each adapter can map it (MCP tool error,
// REST problem status) without parsing text.
type Code string

const (
	CodeNotFound  Code = "not_found"
	CodeForbidden Code = "forbidden"
	CodeInvalid   Code = "invalid"
	CodeConflict  Code = "conflict"
	// CodeInProgress: an earlier call with the same request_id is still
	// running; retry later with the same request_id.
	CodeInProgress Code = "in_progress"
	// CodeRequestReused: the request_id (REST: the Idempotency-Key) was
	// used before for another call (other arguments or another tool);
	// nothing was written.
	CodeRequestReused Code = "request_id_reused"
	// CodePreconditionFailed: the caller's precondition (REST: If-Match on
	// the ticket's version) no longer holds; nothing was written.
	CodePreconditionFailed Code = "precondition_failed"
	// CodeInternal: something failed that is not the caller's doing; the
	// message says what to do next and, with ErrorID, how to report it.
	CodeInternal Code = "internal"
)

// Error is a domain error. Message is written for the caller (often a model)
// and says what to do next.
type Error struct {
	Code    Code
	Message string
	// ErrorID names an internal error in the operator's log (CodeInternal
	// only; empty otherwise). The message carries it too.
	ErrorID string
	// cause is what made an internal error, for the log (Cause).
	cause error
}

func (e *Error) Error() string { return e.Message }

// Errorf builds a domain error.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of a domain error, CodeInternal otherwise.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// ErrVersionConflict is returned by a store when a conditional write lost a
// race (ticket version or workspace counter moved). The Service retries it
// inside the call; callers never see it.
var ErrVersionConflict = errors.New("version conflict")

func workspaceNotFound(slug string) *Error {
	return Errorf(CodeNotFound, "workspace '%s' not found; call list_workspaces to see valid slugs", slug)
}

func ticketNotFound(id string) *Error {
	return Errorf(CodeNotFound, "ticket '%s' not found; call list_tickets to find ticket ids", id)
}
