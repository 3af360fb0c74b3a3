package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/edge"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
	"github.com/ticket-ledger/ticket-ledger/internal/operations"
)

// MaxBodyBytes bounds a request body, as on /mcp (edge.MaxBodyBytes).
const MaxBodyBytes = edge.MaxBodyBytes

// MaxImportBodyBytes bounds the body of an import
// (operations.MaxImportBodyBytes says why).
const MaxImportBodyBytes = operations.MaxImportBodyBytes

// badRequest is a refusal the adapter found before any use case ran.
type badRequest struct {
	status int
	msg    string
}

func (e *badRequest) Error() string { return e.msg }

func refuse(status int, format string, args ...any) error {
	return &badRequest{status: status, msg: fmt.Sprintf(format, args...)}
}

// writeRefusal answers err: a badRequest with its status and code invalid,
// anything else as writeProblem does.
func writeRefusal(w http.ResponseWriter, err error) {
	var br *badRequest
	if errors.As(err, &br) {
		problemf(w, br.status, board.CodeInvalid, br.msg)
		return
	}
	writeProblem(w, err)
}

// idempotencyKey reads the Idempotency-Key header: required on every POST
// and PATCH, a request_id by its rules (1-128 of A-Z a-z 0-9 . _ : -). The
// IETF draft's quoted form ("…", a structured-field string) is accepted too.
func idempotencyKey(r *http.Request) (string, error) {
	values := r.Header.Values("Idempotency-Key")
	if len(values) == 0 {
		return "", refuse(http.StatusBadRequest, "the Idempotency-Key header is required on every write (POST, PATCH, and DELETE of a relation): send a new unique key (e.g. a UUID) for each new intent, and the same key with the same body to retry; nothing was written")
	}
	if len(values) > 1 {
		return "", refuse(http.StatusBadRequest, "send one Idempotency-Key header, not %d; nothing was written", len(values))
	}
	key := strings.TrimSpace(values[0])
	if len(key) >= 2 && key[0] == '"' && key[len(key)-1] == '"' {
		key = key[1 : len(key)-1]
	}
	if err := ledger.ValidateRequestID(key); err != nil {
		return "", refuse(http.StatusBadRequest, "Idempotency-Key: %v; nothing was written", err)
	}
	return key, nil
}

// readBody reads a JSON object body: a JSON media type, at most limit bytes,
// valid UTF-8, one object and nothing after it. It answers the body as
// sent, for the input type, and decoded once into plain JSON values, for
// the schema check.
func readBody(w http.ResponseWriter, r *http.Request, types []string, limit int64) ([]byte, map[string]any, error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || !slices.Contains(types, mt) {
		return nil, nil, refuse(http.StatusUnsupportedMediaType, "the body must be JSON: send Content-Type: %s; nothing was written", strings.Join(types, " or "))
	}
	raw, err := edge.ReadBody(w, r, limit)
	var tooLarge *edge.BodyTooLargeError
	switch {
	case errors.As(err, &tooLarge) && limit == MaxImportBodyBytes:
		return nil, nil, refuse(http.StatusRequestEntityTooLarge, "the body is larger than %d bytes (4 MiB), the most one import may send; nothing was imported: split the rows into several imports, each with its own Idempotency-Key", limit)
	case errors.As(err, &tooLarge):
		return nil, nil, refuse(http.StatusRequestEntityTooLarge, "the body is larger than %d bytes; nothing was written", limit)
	case errors.Is(err, edge.ErrNotUTF8):
		return nil, nil, refuse(http.StatusBadRequest, "the body is not valid UTF-8; nothing was written")
	case err != nil:
		return nil, nil, refuse(http.StatusBadRequest, "the body could not be read: %v; nothing was written", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return nil, nil, refuse(http.StatusBadRequest, "the body must be one JSON object: %s; nothing was written", jsonProblem(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, refuse(http.StatusBadRequest, "the body must be one JSON object with nothing after it; nothing was written")
	}
	return raw, obj, nil
}

func jsonProblem(err error) string {
	if err == nil {
		return "got null"
	}
	return err.Error()
}

// queryArgs turns the query string into arguments for a schema: each
// parameter at most once, known to the schema, and integers where the
// schema says so.
func queryArgs(r *http.Request, schema *jsonschema.Schema) (map[string]any, error) {
	out := map[string]any{}
	for name, values := range r.URL.Query() {
		prop, ok := schema.Properties[name]
		if !ok {
			known := make([]string, 0, len(schema.Properties))
			for k := range schema.Properties {
				known = append(known, k)
			}
			slices.Sort(known)
			return nil, refuse(http.StatusBadRequest, "unknown query parameter %q; this route takes %s", name, strings.Join(known, ", "))
		}
		if len(values) != 1 {
			return nil, refuse(http.StatusBadRequest, "query parameter %q is given %d times; give it once", name, len(values))
		}
		v := values[0]
		if prop.Type == "integer" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, refuse(http.StatusBadRequest, "query parameter %q must be an integer, not %q", name, v)
			}
			out[name] = float64(n) // as a JSON number decodes into any
			continue
		}
		if prop.Type == "boolean" || slices.Contains(prop.Types, "boolean") {
			b, err := strconv.ParseBool(v)
			if err != nil || (v != "true" && v != "false") {
				return nil, refuse(http.StatusBadRequest, "query parameter %q must be true or false, not %q", name, v)
			}
			out[name] = b
			continue
		}
		out[name] = v
	}
	return out, nil
}

// checkArgs validates arguments against a resolved schema (types, enums,
// required and unknown properties), with a message that says where the
// schema is.
func checkArgs(args map[string]any, resolved *jsonschema.Resolved, what string) error {
	if err := resolved.Validate(args); err != nil {
		has := func(name string) bool { _, ok := args[name]; return ok }
		hint := operations.ArgumentHint(has)
		switch {
		case hint != "":
		case has("request_id"):
			hint = "the request_id is the Idempotency-Key header: leave it out of the body"
		default:
			hint = "fix it to match the schema in /api/v1/openapi.json"
		}
		return refuse(http.StatusBadRequest, "invalid %s (%s); nothing was written: %s", what, strings.TrimPrefix(err.Error(), "validating root: "), hint)
	}
	return nil
}

// ifMatch reads If-Match as a ticket version: 0 when absent or "*" (any
// version), else the version its one strong entity-tag names. A weak tag
// never matches (RFC 9110 compares If-Match strongly). A list of several
// tags is refused: a ticket has one version, so no client needs one.
func ifMatch(r *http.Request) (int64, error) {
	v := strings.TrimSpace(r.Header.Get("If-Match"))
	if v == "" || v == "*" {
		return 0, nil
	}
	if strings.HasPrefix(v, "W/") {
		return -1, nil // matches no version: a 412
	}
	if n, ok := parseETag(v); ok {
		return n, nil
	}
	return 0, refuse(http.StatusBadRequest, "If-Match %q is not an entity-tag of this API (the ETag of GET /api/v1/tickets/{id}, e.g. \"3\"); nothing was written", v)
}

// etag is a ticket version as an entity-tag.
func etag(version int64) string { return `"` + strconv.FormatInt(version, 10) + `"` }

func parseETag(v string) (int64, bool) {
	if len(v) < 3 || v[0] != '"' || v[len(v)-1] != '"' {
		return 0, false
	}
	n, err := strconv.ParseInt(v[1:len(v)-1], 10, 64)
	return n, err == nil && n > 0
}
