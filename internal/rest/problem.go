package rest

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/httpstatus"
)

// Problem is an RFC 9457 problem details object: every error answer of the
// API, as application/problem+json.
type Problem struct {
	Type   string `json:"type" jsonschema:"urn:ticket-ledger:problem:<code>"`
	Title  string `json:"title" jsonschema:"a short summary of the kind of problem"`
	Status int    `json:"status" jsonschema:"the HTTP status code"`
	Detail string `json:"detail" jsonschema:"what went wrong and what to do next; the same text MCP gives for the same error"`
	Code   string `json:"code" jsonschema:"the domain's error code: not_found, forbidden, invalid, conflict, in_progress, request_id_reused, precondition_failed, internal, or unauthorized"`
	// ErrorID names an internal error in the operator's log.
	ErrorID string `json:"error_id,omitempty" jsonschema:"for internal errors: the id to report; the log has the cause under it"`
}

// codeUnauthorized is the code of a 401: no credential, or a bad one. It
// is the adapter's own (Deny answers it before any use case runs), not a
// domain code, so it is not in httpstatus's table.
const codeUnauthorized = "unauthorized"

var titles = map[board.Code]string{
	board.CodeNotFound:           "Not found",
	board.CodeForbidden:          "Forbidden",
	board.CodeInvalid:            "Invalid request",
	board.CodeConflict:           "Conflict",
	board.CodeInProgress:         "Still in progress",
	board.CodeRequestReused:      "Idempotency-Key reused for another request",
	board.CodePreconditionFailed: "Precondition failed",
	board.CodeInternal:           "Internal error",
	codeUnauthorized:             "Unauthorized",
}

// writeProblem answers err: a domain error with its code, its status from
// httpstatus (the one table every HTTP surface uses) and its message; any
// other error is internal, without its cause (the service already logged
// the errors it made internal; this is a programming error's last line).
func writeProblem(w http.ResponseWriter, err error) {
	var e *board.Error
	if !errors.As(err, &e) {
		e = board.Errorf(board.CodeInternal, "the server could not complete this request because of an internal problem; retrying with the same Idempotency-Key is safe")
	}
	writeProblemStatus(w, httpstatus.Of(e.Code), e.Code, e.Message, e.ErrorID)
}

// problemf answers a problem the adapter itself found (a missing header, a
// malformed body) with the status that names it.
func problemf(w http.ResponseWriter, status int, code board.Code, msg string) {
	writeProblemStatus(w, status, code, msg, "")
}

func writeProblemStatus(w http.ResponseWriter, status int, code board.Code, msg, errorID string) {
	title := titles[code]
	if title == "" {
		title = http.StatusText(status)
	}
	body, _ := json.Marshal(Problem{Type: "urn:ticket-ledger:problem:" + string(code), Title: title, Status: status,
		Detail: msg, Code: string(code), ErrorID: errorID})
	h := w.Header()
	h.Set("Content-Type", "application/problem+json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(body)
}

// Deny is the resolver's refusal of a request it cannot attribute (401, or
// 503 when the credential could not be checked), as a problem.
func Deny(w http.ResponseWriter, status int, msg string) {
	code := board.Code(codeUnauthorized)
	if status != http.StatusUnauthorized {
		code = board.CodeInternal
	}
	problemf(w, status, code, msg)
}
