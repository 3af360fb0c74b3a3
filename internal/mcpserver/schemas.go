package mcpserver

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/ticket-ledger/ticket-ledger/internal/apischema"
)

// mustSchemas infers the input and output schemas of a tool, the same
// schemas the REST API's OpenAPI document publishes (internal/apischema).
func mustSchemas[In, Out any]() (in, out *jsonschema.Schema) {
	return apischema.ForInput[In](), apischema.For[Out]()
}
