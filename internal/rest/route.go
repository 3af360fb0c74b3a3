package rest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/ticket-ledger/ticket-ledger/internal/apischema"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/obs"
	"github.com/ticket-ledger/ticket-ledger/internal/operations"
)

// A route is one operation of the API (internal/operations): how it is
// served and how the OpenAPI document describes it. Both come from the same
// declaration, so the document cannot drift from what is served.
type route struct {
	method, pattern string // pattern is under /api/v1, in ServeMux syntax
	spec            operations.Route
	write           bool // Idempotency-Key required; its value is request_id
	// schemas are inferred on first use (a cold start builds none).
	schemas func() routeSchemas
	serve   func(s *Server, w http.ResponseWriter, r *http.Request)
}

// routeSchemas are a route's schemas: the whole input (path parameters'
// descriptions come from it), the body or query part, and the result,
// which only the document needs (inferred when it is built).
type routeSchemas struct {
	input, part *jsonschema.Schema
	resolved    func() *jsonschema.Resolved // part, for validation (serving only)
	result      func() *jsonschema.Schema
}

// useCaseRoute serves one operation: its input is decoded from the path
// parameters, the Idempotency-Key (as request_id) and the body or query,
// and its result is the answer's body. headers sets what the result adds
// to the answer (ETag, Location).
func useCaseRoute(op operations.Operation, headers func(r *http.Request, h http.Header, out any)) route {
	info := *op.Route
	write := op.Kind == operations.Write
	schemas := sync.OnceValue(func() routeSchemas {
		in := op.InputTypeSchema()
		var outside []string
		for _, prop := range info.Path {
			outside = append(outside, prop)
		}
		if write {
			outside = append(outside, "request_id")
		}
		part := apischema.Without(in, outside...)
		resolved := sync.OnceValue(func() *jsonschema.Resolved {
			r, err := part.Resolve(nil)
			if err != nil {
				panic(err) // a programming error, caught by every test of the route
			}
			return r
		})
		return routeSchemas{input: in, part: part, resolved: resolved, result: op.OutputSchema}
	})
	if len(info.MediaTypes) == 0 {
		info.MediaTypes = []string{"application/json"}
	}
	if info.MaxBody == 0 {
		info.MaxBody = MaxBodyBytes
	}
	serve := func(s *Server, w http.ResponseWriter, r *http.Request) {
		obs.SetRoute(r.Context(), info.Method+" "+Prefix+info.Pattern)
		// The body is read once: checked against the schema as plain JSON
		// values, then decoded into the input type with what the path and
		// the headers carry added to the object as it was sent.
		var raw []byte
		var args map[string]any
		var err error
		switch {
		case info.Body:
			raw, args, err = readBody(w, r, info.MediaTypes, info.MaxBody)
		case info.Query:
			if args, err = queryArgs(r, schemas().part); err == nil {
				raw, err = json.Marshal(args)
			}
		}
		if err == nil && (info.Body || info.Query) {
			what := "request body"
			if info.Query {
				what = "query parameters"
			}
			err = checkArgs(args, schemas().resolved(), what)
		}
		// The key is checked after the body: a body that cannot be a call
		// is refused first, whatever its key.
		outside := map[string]string{}
		if err == nil && write {
			outside["request_id"], err = idempotencyKey(r)
		}
		var version int64
		if err == nil && info.IfMatch {
			version, err = ifMatch(r)
		}
		if err != nil {
			writeRefusal(w, err)
			return
		}
		for param, prop := range info.Path {
			outside[prop] = r.PathValue(param)
		}
		in, err := op.Decode(withMembers(raw, outside))
		if err != nil {
			writeRefusal(w, refuse(http.StatusBadRequest, "invalid %s: %v; nothing was written", "request", err))
			return
		}
		if version != 0 {
			setIfVersion(in, version)
		}
		out, err := op.Call(r.Context(), s.svc, in)
		if err != nil {
			writeProblem(w, err)
			return
		}
		body, err := boundedJSON(out)
		if err != nil {
			writeProblem(w, err) // internal: no result the board allows is this large
			return
		}
		if headers != nil {
			headers(r, w.Header(), out)
		}
		if info.Link {
			nextLink(r, w.Header(), out)
		}
		if info.RetryAfter {
			setRetryAfter(s, w.Header(), out)
		}
		if rp, ok := out.(interface{ WasReplayed() bool }); ok && rp.WasReplayed() {
			w.Header().Set("Idempotent-Replayed", "true")
		}
		writeBody(w, info.Status, body)
	}
	return route{method: info.Method, pattern: info.Pattern, spec: info, write: write, schemas: schemas, serve: serve}
}

// withMembers adds members to a JSON object as sent (raw, which the schema
// check has made sure is one object without them), or makes an object of
// them when there is no body: inputs that note which fields were sent
// (update_ticket) decode the whole call at once.
func withMembers(raw []byte, members map[string]string) []byte {
	if len(members) == 0 {
		return raw
	}
	add, _ := json.Marshal(members)
	body := bytes.TrimSpace(raw)
	if len(body) < 2 {
		return add
	}
	rest := bytes.TrimSpace(body[1:])
	out := make([]byte, 0, len(add)+len(body)+1)
	out = append(out, add[:len(add)-1]...) // without its closing brace
	if rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, rest...)
}

// setIfVersion passes If-Match to the use cases that take it.
func setIfVersion(in any, version int64) {
	if u, ok := in.(*board.UpdateTicketInput); ok {
		u.IfVersion = version
	}
}

func writeBody(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(body)
}
