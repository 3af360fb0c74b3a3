// Package apischema infers the JSON Schemas of the domain's types
// (internal/board's inputs and results) once, for every adapter that
// publishes them: the MCP tools' input and output schemas and the REST
// API's OpenAPI document are the same schemas of the same Go types, so
// neither keeps a copy by hand.
package apischema

import (
	"encoding/json"
	"reflect"
	"slices"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// typeSchemas refine what reflection infers: enums for the domain's value
// sets (so a model sees the valid values), null for clearable fields.
func typeSchemas() map[reflect.Type]*jsonschema.Schema {
	enum := func(values ...string) *jsonschema.Schema {
		s := &jsonschema.Schema{Type: "string"}
		for _, v := range values {
			s.Enum = append(s.Enum, v)
		}
		return s
	}
	statuses := make([]string, len(board.Statuses))
	for i, st := range board.Statuses {
		statuses[i] = string(st)
	}
	priorities := make([]string, len(board.Priorities))
	for i, p := range board.Priorities {
		priorities[i] = string(p)
	}
	return map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[board.Status]():     enum(statuses...),
		reflect.TypeFor[board.Priority]():   enum(priorities...),
		reflect.TypeFor[board.AIPolicy]():   enum(string(board.PolicyReadWrite), string(board.PolicyReadOnly), string(board.PolicyHidden)),
		reflect.TypeFor[board.Source]():     enum(string(board.SourceMCP), string(board.SourceREST), string(board.SourceWeb), string(board.SourceTask)),
		reflect.TypeFor[board.TaskStatus](): enum(taskStatuses()...),
		reflect.TypeFor[board.Nullable]():   {Types: []string{"string", "null"}},
		reflect.TypeFor[time.Time]():        {Type: "string", Format: "date-time"},
		// Stored results are objects whose shape depends on the tool.
		reflect.TypeFor[json.RawMessage](): {Type: "object"},
	}
}

// For infers the schema of T. Optional properties whose type admits null
// also admit it in their enum (see nullInEnums). A failure is a programming
// error, caught by the tools/list snapshot and OpenAPI tests.
func For[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: typeSchemas()})
	if err != nil {
		panic(err)
	}
	nullInEnums(s)
	return s
}

// ForInput infers the schema of input type T, as For, and states what a
// request_id must be (ledger.RequestIDPattern, at most
// ledger.MaxRequestIDLength characters) where T takes one: a client learns
// the rule from the schema before it learns it from a refusal.
func ForInput[T any]() *jsonschema.Schema {
	s := For[T]()
	if p, ok := s.Properties["request_id"]; ok && p.Type == "string" {
		p.Pattern = ledger.RequestIDPattern
		p.MinLength = jsonschema.Ptr(1)
		p.MaxLength = jsonschema.Ptr(ledger.MaxRequestIDLength)
	}
	return s
}

// nullInEnums lets null through the enum of an optional property (an
// update_ticket priority) whose type admits it: a schema that allows null
// and then refuses it in the enum gives a model a puzzle ("<invalid
// reflect.Value> does not equal any of"), where the domain's refusal says
// what to do instead.
func nullInEnums(s *jsonschema.Schema) {
	for _, p := range s.Properties {
		if len(p.Enum) > 0 && slices.Contains(p.Types, "null") && !slices.Contains(p.Enum, any(nil)) {
			p.Enum = append(p.Enum, nil)
		}
	}
}

// Without is a copy of an object schema without the named properties: a
// REST body is its use case's input less what the path and headers carry
// (the workspace, the ticket id, the request_id as Idempotency-Key).
func Without(s *jsonschema.Schema, names ...string) *jsonschema.Schema {
	c := s.CloneSchemas()
	c.Properties = make(map[string]*jsonschema.Schema, len(s.Properties))
	for k, v := range s.Properties {
		if !slices.Contains(names, k) {
			c.Properties[k] = v
		}
	}
	c.Required = slices.DeleteFunc(slices.Clone(s.Required), func(n string) bool { return slices.Contains(names, n) })
	if len(c.PropertyOrder) > 0 {
		c.PropertyOrder = slices.DeleteFunc(slices.Clone(s.PropertyOrder), func(n string) bool { return slices.Contains(names, n) })
	}
	return c
}

func taskStatuses() []string {
	out := make([]string, len(board.TaskStatuses))
	for i, st := range board.TaskStatuses {
		out[i] = string(st)
	}
	return out
}
