package edge

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"unicode/utf8"
)

// MaxBodyBytes bounds a request body on /mcp and the REST API: the largest
// valid call (a 20 000 character body of 4-byte characters, tags and
// links) fits well inside.
const MaxBodyBytes = 1 << 20

// ErrNotUTF8 is ReadBody's answer to a body that is not valid UTF-8: JSON
// decoding would quietly turn bad bytes into U+FFFD and store them.
var ErrNotUTF8 = errors.New("the body is not valid UTF-8")

// BodyTooLargeError is ReadBody's answer to a body over its limit.
type BodyTooLargeError struct{ Limit int64 }

// Error states the limit, so the caller knows how much to cut.
func (e *BodyTooLargeError) Error() string {
	return fmt.Sprintf("the body is larger than %d bytes", e.Limit)
}

// ReadBody reads the whole body of r, at most limit bytes, and checks that
// it is valid UTF-8: a *BodyTooLargeError over the limit, ErrNotUTF8, or the
// read's own error (a client that went away). Each surface turns these into
// its own kind of answer; the rule is written here once.
func ReadBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, &BodyTooLargeError{Limit: limit}
	}
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(raw) {
		return nil, ErrNotUTF8
	}
	return raw, nil
}
