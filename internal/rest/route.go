package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/ticket-ledger/ticket-ledger/internal/apischema"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/obs"
)

// A route is one operation of the API: how it is served and how the
// OpenAPI document describes it. Both come from the same spec, so the
// document cannot drift from what is served.
type route struct {
	method, pattern string // pattern is under /api/v1, in ServeMux syntax
	spec            specInfo
	// schemas are inferred on first use (a cold start builds none).
	schemas func() routeSchemas
	serve   func(s *Server, w http.ResponseWriter, r *http.Request)
}

// specInfo is what the document says of a route besides its schemas.
type specInfo struct {
	id, summary, description string
	status                   int               // the status of success
	path                     map[string]string // path parameter -> input property
	body                     bool              // a JSON body (the input less path and key)
	query                    bool              // query parameters (the input less path)
	write                    bool              // Idempotency-Key required; its value is request_id
	ifMatch                  bool              // If-Match taken as the ticket version
	etag, location, link     bool              // response headers set
	retryAfter               bool              // Retry-After while the answer's task is working
	problems                 []int             // the route's own error statuses
	mediaTypes               []string          // body media types (default application/json)
	maxBody                  int64             // the body's bound (default MaxBodyBytes)
}

// routeSchemas are a route's schemas: the whole input (path parameters'
// descriptions come from it), the body or query part, and the result,
// which only the document needs (inferred when it is built).
type routeSchemas struct {
	input, part *jsonschema.Schema
	resolved    func() *jsonschema.Resolved // part, for validation (serving only)
	result      func() *jsonschema.Schema
}

// useCaseRoute declares the route that serves one board use case, use:
// its input In is decoded from the path parameters, the Idempotency-Key (as
// request_id) and the body or query, and its result Out is the answer's
// body. headers sets what the result adds to the answer (ETag, Location,
// Link).
func useCaseRoute[In, Out any](method, pattern string, info specInfo, use func(*board.Service) func(context.Context, In) (Out, error),
	headers func(r *http.Request, h http.Header, out Out)) route {
	schemas := sync.OnceValue(func() routeSchemas {
		in := apischema.For[In]()
		var outside []string
		for _, prop := range info.path {
			outside = append(outside, prop)
		}
		if info.write {
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
		return routeSchemas{input: in, part: part, resolved: resolved, result: apischema.For[Out]}
	})
	if len(info.mediaTypes) == 0 {
		info.mediaTypes = []string{"application/json"}
	}
	if info.maxBody == 0 {
		info.maxBody = MaxBodyBytes
	}
	serve := func(s *Server, w http.ResponseWriter, r *http.Request) {
		obs.SetRoute(r.Context(), method+" "+Prefix+pattern)
		args := map[string]json.RawMessage{}
		var err error
		switch {
		case info.body:
			args, err = readBody(w, r, info.mediaTypes, info.maxBody)
		case info.query:
			args, err = queryArgs(r, schemas().part)
		}
		if err == nil && (info.body || info.query) {
			what := "request body"
			if info.query {
				what = "query parameters"
			}
			err = checkArgs(args, schemas().resolved(), what)
		}
		// The key is checked after the body: a body that cannot be a call
		// is refused first, whatever its key.
		if err == nil && info.write {
			var key string
			if key, err = idempotencyKey(r); err == nil {
				args["request_id"], _ = json.Marshal(key)
			}
		}
		var version int64
		if err == nil && info.ifMatch {
			version, err = ifMatch(r)
		}
		if err != nil {
			writeRefusal(w, err)
			return
		}
		for param, prop := range info.path {
			args[prop], _ = json.Marshal(r.PathValue(param))
		}
		var in In
		if len(args) > 0 {
			raw, _ := json.Marshal(args)
			if err := json.Unmarshal(raw, &in); err != nil {
				writeRefusal(w, refuse(http.StatusBadRequest, "invalid %s: %v; nothing was written", "request", err))
				return
			}
		}
		if version != 0 {
			setIfVersion(&in, version)
		}
		out, err := use(s.svc)(r.Context(), in)
		board.Observe(r.Context(), out, err) // the request's log line and metrics
		if err != nil {
			writeProblem(w, err)
			return
		}
		body, err := boundedJSON(&out)
		if err != nil {
			writeProblem(w, err) // internal: no result the board allows is this large
			return
		}
		if headers != nil {
			headers(r, w.Header(), out)
		}
		if info.retryAfter {
			setRetryAfter(s, w.Header(), out)
		}
		if rp, ok := any(out).(interface{ WasReplayed() bool }); ok && rp.WasReplayed() {
			w.Header().Set("Idempotent-Replayed", "true")
		}
		writeBody(w, info.status, body)
	}
	return route{method: method, pattern: pattern, spec: info, schemas: schemas, serve: serve}
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
