// Package httpstatus is the one table from the domain's error codes to HTTP
// statuses. Every surface that answers over HTTP (the REST API's problems,
// the web board's pages) reads it, so one error is one status wherever a
// client meets it. The domain (internal/board) knows no HTTP: it names
// codes, and this adapter-level table decides what they are on the wire.
package httpstatus

import (
	"maps"
	"net/http"
	"slices"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// byCode is the table. Each status is the one a client that knows HTTP
// expects, and no two retry behaviours share one:
//
//   - not_found 404, forbidden 403: as RFC 9110 names them. A workspace
//     hidden from AI is a 404 too (the domain answers not_found for it).
//   - invalid 400: the request cannot be done as sent; change it, do not
//     retry it. One status for the code, whether the adapter (schema,
//     headers, JSON) or a domain rule refused it: where a value is checked
//     is the server's business, and a client matching on status or code
//     sees them agree. 413 and 415 stay the adapter's for bodies too large
//     or not JSON.
//   - conflict 409: the state refuses it (a slug that exists).
//   - in_progress 409: the first request with this key is still running;
//     retry the same request later. 409 as the IETF Idempotency-Key draft
//     answers a concurrent request with the same key.
//   - request_id_reused 422: the key was used for another request; never
//     retry as is, send a new key. 422 as that draft answers a key reused
//     with another payload, and apart from 409, so a client that retries
//     every 409 cannot loop on it.
//   - precondition_failed 412: If-Match names an old version (RFC 9110).
//   - internal 500: not the caller's doing; retrying with the same key is
//     safe.
//
// The web board answers its pages with the same statuses, but for one case
// of its own, not in this table: a form it shows again because what was
// typed was refused answers 422, a page for a person to correct rather than
// a request for a program to change (internal/web's formStatus;
// docs/decisions.md, "Errors and retries").
var byCode = map[board.Code]int{
	board.CodeNotFound:           http.StatusNotFound,
	board.CodeForbidden:          http.StatusForbidden,
	board.CodeInvalid:            http.StatusBadRequest,
	board.CodeConflict:           http.StatusConflict,
	board.CodeInProgress:         http.StatusConflict,
	board.CodeRequestReused:      http.StatusUnprocessableEntity,
	board.CodePreconditionFailed: http.StatusPreconditionFailed,
	board.CodeInternal:           http.StatusInternalServerError,
}

// Of is the status of a domain error code. A code the table lacks is 500:
// the test over every code of internal/board keeps that from happening.
func Of(code board.Code) int {
	if s, ok := byCode[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// OfError is the status of an error: its domain code's, 500 for an error
// that is not a domain error.
func OfError(err error) int { return Of(board.ErrorCode(err)) }

// Codes are the domain codes the table maps, sorted: the adapters' tests
// walk them to show each surface answers every code with the table's
// status.
func Codes() []board.Code {
	return slices.Sorted(maps.Keys(byCode))
}
