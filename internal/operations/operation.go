package operations

import (
	"context"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/ticket-ledger/ticket-ledger/internal/apischema"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Kind says whether an operation changes the board.
type Kind uint8

const (
	// Read changes nothing: an MCP tool marked readOnlyHint, a REST GET.
	Read Kind = iota
	// Write changes the board exactly once per request_id (the REST
	// Idempotency-Key): an MCP tool marked idempotentHint and not
	// destructive.
	Write
)

// Tool is how an operation is offered to a model over MCP.
type Tool struct {
	Name        string // the tool's name, e.g. create_ticket
	Title       string // its annotations' title
	Description string // what it tells the model; a write's ends with the retry rule (WriteNote)
}

// Route is how an operation is served at /api/v1 and described in the
// OpenAPI document.
type Route struct {
	Method, Pattern string            // Pattern is under /api/v1, in ServeMux syntax
	ID              string            // the OpenAPI operationId
	Summary         string            // the OpenAPI summary
	Description     string            // the OpenAPI description
	Status          int               // the status of success
	Path            map[string]string // path parameter -> input property
	Body            bool              // a JSON body (the input less path and key)
	Query           bool              // query parameters (the input less path)
	IfMatch         bool              // If-Match taken as the ticket version
	ETag, Location  bool              // response headers set
	Link            bool              // Link rel="next" to the next page
	RetryAfter      bool              // Retry-After while the answer's task is working
	Problems        []int             // the route's own error statuses
	MediaTypes      []string          // body media types (default application/json)
	MaxBody         int64             // the body's bound (default: the edge's MaxBodyBytes)
}

// Operation is one use case as the surfaces offer it: a Tool, a Route or
// both, calling the same board.Service method.
type Operation struct {
	Kind  Kind
	Tool  *Tool  // nil: not an MCP tool
	Route *Route // nil: not a REST route

	decode       func(raw []byte) (any, error)
	call         func(ctx context.Context, svc *board.Service, in any) (any, error)
	inputSchema  func() *jsonschema.Schema
	typeSchema   func() *jsonschema.Schema
	outputSchema func() *jsonschema.Schema
}

// define binds an operation to its use case: In is decoded from the
// arguments, use(svc) is called with it, and its Out is the answer.
func define[In, Out any](op Operation, use func(*board.Service) func(context.Context, In) (Out, error)) Operation {
	op.decode = func(raw []byte) (any, error) {
		in := new(In)
		if len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, in); err != nil {
				return nil, err
			}
		}
		return in, nil
	}
	op.call = func(ctx context.Context, svc *board.Service, in any) (any, error) {
		out, err := use(svc)(ctx, *in.(*In))
		board.Observe(ctx, out, err) // the request's log line and metrics
		return &out, err
	}
	op.inputSchema = apischema.ForInput[In]
	op.typeSchema = apischema.For[In]
	op.outputSchema = apischema.For[Out]
	return op
}

// Decode makes a new input of the operation's type from JSON arguments
// (an absent or null object is the zero input). The result is a pointer
// to the input, for Call.
func (op Operation) Decode(raw []byte) (any, error) { return op.decode(raw) }

// Call runs the use case with an input made by Decode, on behalf of the
// principal in ctx, and notes what it did for the request's log line. The
// result is a pointer to the use case's result (so a board.Fitter can trim
// it), or nil with the error.
func (op Operation) Call(ctx context.Context, svc *board.Service, in any) (any, error) {
	out, err := op.call(ctx, svc, in)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// InputSchema is the input's schema as a tool publishes it: with the rule a
// request_id follows (apischema.ForInput). Inferred on each call: callers
// keep it.
func (op Operation) InputSchema() *jsonschema.Schema { return op.inputSchema() }

// InputTypeSchema is the input type's schema as apischema.For infers it,
// from which a route takes its body, query and path parameters.
func (op Operation) InputTypeSchema() *jsonschema.Schema { return op.typeSchema() }

// OutputSchema is the result's schema.
func (op Operation) OutputSchema() *jsonschema.Schema { return op.outputSchema() }
