package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/obs"
	"github.com/ticket-ledger/ticket-ledger/internal/operations"
)

func boolPtr(b bool) *bool { return &b }

// annotations are what a tool tells a client about its effects: a read
// changes nothing; a write, retried with the same request_id, has no
// further effect, and only adds or changes, never deletes.
func annotations(op operations.Operation) *mcp.ToolAnnotations {
	if op.Kind == operations.Read {
		return &mcp.ToolAnnotations{Title: op.Tool.Title, ReadOnlyHint: true, OpenWorldHint: boolPtr(false)}
	}
	return &mcp.ToolAnnotations{Title: op.Tool.Title, IdempotentHint: true, DestructiveHint: boolPtr(false), OpenWorldHint: boolPtr(false)}
}

// registerTools adds a tool for every operation that has one
// (internal/operations declares them, REST routes included).
func registerTools(s *mcp.Server, svc *board.Service, who PrincipalFunc) {
	for _, op := range operations.All() {
		if op.Tool != nil {
			addTool(s, svc, who, op)
		}
	}
}

// addTool registers an operation as a typed tool: its input and output
// schemas are inferred from the operation's types, the principal comes
// from the transport, and
// errors come back as tool errors (isError) with the domain's message, which
// says what to do next.
//
// It goes through the SDK's raw AddTool rather than the typed one because
// the typed one resolves every input and output schema when the server is
// built, which was most of a Lambda cold start. Here the input schema is
// resolved on the tool's first call, and outputs are not re-validated on
// every call: they are Go values of the type the schema was inferred from,
// and TestOutputsMatchTheirSchemas checks real outputs against it.
//
// The input schema is handed to the SDK already encoded: the SDK looks for
// header annotations in it on every tools/call by encoding and decoding it
// again, and encoding a *jsonschema.Schema by reflection is costly
// (docs/benchmarks.md); encoded JSON only has to be parsed.
func addTool(s *mcp.Server, svc *board.Service, who PrincipalFunc, op operations.Operation) {
	t := &mcp.Tool{Name: op.Tool.Name, Description: op.Tool.Description, Annotations: annotations(op)}
	inSchema, outSchema := op.InputSchema(), op.OutputSchema()
	inJSON, err := json.Marshal(inSchema)
	if err != nil {
		panic(fmt.Errorf("input schema of %s: %w", t.Name, err)) // a programming error
	}
	t.InputSchema, t.OutputSchema = json.RawMessage(inJSON), outSchema
	resolve := sync.OnceValues(func() (*jsonschema.Resolved, error) { return inSchema.Resolve(nil) })
	s.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		obs.SetTool(ctx, t.Name)
		resolved, err := resolve()
		if err != nil {
			return nil, fmt.Errorf("input schema of %s: %w", t.Name, err) // a programming error
		}
		input, err := decodeArguments(op, req.Params.Arguments, resolved)
		if err != nil {
			return toolError(err), nil
		}
		read := op.Kind == operations.Read
		if read {
			if err := holdAnswer(ctx, board.MaxAnswerBytes); err != nil {
				return nil, err // the caller gave up while waiting for room
			}
		}
		output, err := op.Call(board.WithPrincipal(ctx, who(ctx, req.Extra)), svc, input)
		if err != nil {
			return toolError(err), nil
		}
		// Room is kept for the links of every ticket read; the result may
		// give up tickets to fit, and their links go with them.
		text, err := boundedJSON(output, linksCost(ticketLinks(output)))
		if err != nil {
			return nil, fmt.Errorf("encoding the result of %s: %w", t.Name, err)
		}
		links := ticketLinks(output)
		cost := int64(answerCost(text) + linksCost(links))
		if read {
			settleAnswer(ctx, cost)
		} else if err := holdAnswer(ctx, cost); err != nil {
			return nil, err // the caller gave up while waiting for room
		}
		return &mcp.CallToolResult{
			// The SDK encodes the value itself into the response: the
			// same JSON as text, with no third copy held meanwhile.
			StructuredContent: output,
			// Clients without structured content read the same JSON as
			// text; boundedJSON counted both copies. A list of tickets
			// links each one after it (resourcelinks.go).
			Content: append([]mcp.Content{&mcp.TextContent{Text: text}}, links...),
		}, nil
	})
}

// decodeArguments checks the arguments against the input schema (types,
// enums, required and unknown fields), then decodes them into the
// operation's input.
func decodeArguments(op operations.Operation, raw json.RawMessage, schema *jsonschema.Resolved) (any, error) {
	args := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, fmt.Errorf("arguments must be a JSON object: %v", err)
		}
	}
	if err := schema.Validate(args); err != nil {
		hint := operations.ArgumentHint(func(name string) bool { _, ok := args[name]; return ok })
		if hint == "" {
			hint = "fix them to match the tool's inputSchema (tools/list) and call again"
		}
		return nil, fmt.Errorf("invalid arguments (%v); nothing was written: %s", strings.TrimPrefix(err.Error(), "validating root: "), hint)
	}
	in, err := op.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid arguments: %v", err)
	}
	return in, nil
}

func toolError(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
}
