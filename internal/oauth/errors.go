package oauth

import (
	"encoding/json"
	"net/http"
)

// OAuth error codes (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 8707 §2).
const (
	errInvalidRequest          = "invalid_request"
	errInvalidClient           = "invalid_client"
	errInvalidGrant            = "invalid_grant"
	errUnauthorizedClient      = "unauthorized_client"
	errUnsupportedGrantType    = "unsupported_grant_type"
	errUnsupportedResponseType = "unsupported_response_type"
	errInvalidTarget           = "invalid_target"
	errAccessDenied            = "access_denied"
	errServerError             = "server_error"
	errTemporarilyUnavailable  = "temporarily_unavailable"
	errInvalidRedirectURI      = "invalid_redirect_uri"
	errInvalidClientMetadata   = "invalid_client_metadata"
	errUnsupportedTokenType    = "unsupported_token_type"
)

// oauthError is an error answer of the token, revocation or registration
// endpoint: a JSON object with error and error_description.
type oauthError struct {
	status      int
	code        string
	description string
}

func (e *oauthError) Error() string { return e.code + ": " + e.description }

func newError(status int, code, description string) *oauthError {
	return &oauthError{status: status, code: code, description: description}
}

func badRequest(code, description string) *oauthError {
	return newError(http.StatusBadRequest, code, description)
}

// writeJSON answers JSON that is never cached: token answers carry
// secrets, and the others change with the server's state.
func writeJSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, e *oauthError) {
	if e.status == http.StatusUnauthorized {
		// RFC 6749 §5.2: a 401 names the scheme a client may authenticate
		// with; public clients have none but their client_id.
		w.Header().Set("WWW-Authenticate", `Basic realm="ticket-ledger"`)
	}
	writeJSON(w, e.status, map[string]string{"error": e.code, "error_description": e.description})
}

// writeBody encodes v as the body of an answer whose headers are set.
func writeBody(w http.ResponseWriter, v any) {
	w.WriteHeader(http.StatusOK)
	json.NewEncoder(w).Encode(v)
}
