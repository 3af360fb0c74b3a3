package board

import (
	"errors"
	"fmt"
)

// Code classifies a domain error so each adapter can map it (MCP tool error,
// REST problem status) without parsing text.
type Code string

const (
	// CodeNotFound: no such workspace, ticket, task or person, or one the
	// caller may not see (a workspace hidden from AI answers exactly so).
	CodeNotFound Code = "not_found"
	// CodeForbidden: the caller may not do this (a workspace read-only for
	// AI, a setting only admins change, a caller with no author, a wrong
	// password); the message says who can.
	CodeForbidden Code = "forbidden"
	// CodeInvalid: the arguments break a rule; the message names the field
	// and the rule, and the same call will fail again.
	CodeInvalid Code = "invalid"
	// CodeConflict: the call clashed with the board's state or with other
	// calls (a slug taken, a ticket that kept changing, an earlier call with
	// this request_id that stopped); the message says what to do.
	CodeConflict Code = "conflict"
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
	// Field names the input field an error is about ("title", "tags", a
	// new workspace's taken "slug"), set by validation, so a form can show
	// the message next to that field; empty when no one field is to blame. The message
	// does not change with it: MCP and REST answer the same text.
	Field string
	// ErrorID names an internal error in the operator's log (CodeInternal
	// only; empty otherwise). The message carries it too.
	ErrorID string
	// cause is what made an internal error, for the log (Cause).
	cause error
}

// Error is the message alone: the code travels separately (MCP error data,
// REST problem type), and the message is what the caller reads.
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

// ErrorField is the input field a domain error is about, "" when it names
// none (or is no domain error).
func ErrorField(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Field
	}
	return ""
}

// InField marks a validation error as being about field (see inField),
// for checks made outside this package, such as the people and token
// inputs of the auth package.
func InField(field string, err error) error { return inField(field, err) }

// inField marks a validation error as being about field, keeping a field an
// inner check named already. Validation errors are made fresh for each
// call, so marking one in place is safe.
func inField(field string, err error) error {
	var e *Error
	if errors.As(err, &e) && e.Field == "" {
		e.Field = field
	}
	return err
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
