package mcpserver

import (
	"encoding/json"
	"reflect"
	"slices"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
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
		reflect.TypeFor[board.Status]():   enum(statuses...),
		reflect.TypeFor[board.Priority](): enum(priorities...),
		reflect.TypeFor[board.AIPolicy](): enum(string(board.PolicyReadWrite), string(board.PolicyReadOnly), string(board.PolicyHidden)),
		reflect.TypeFor[board.Source]():   enum(string(board.SourceMCP), string(board.SourceREST), string(board.SourceWeb), string(board.SourceTask)),
		reflect.TypeFor[board.Nullable](): {Types: []string{"string", "null"}},
		reflect.TypeFor[time.Time]():      {Type: "string", Format: "date-time"},
		// Stored results are objects whose shape depends on the tool.
		reflect.TypeFor[json.RawMessage](): {Type: "object"},
	}
}

// mustSchemas infers the input and output schemas of a tool. A failure is
// a programming error caught by the tools/list snapshot test.
func mustSchemas[In, Out any]() (in, out *jsonschema.Schema) {
	opts := &jsonschema.ForOptions{TypeSchemas: typeSchemas()}
	in, err := jsonschema.For[In](opts)
	if err != nil {
		panic(err)
	}
	nullInEnums(in)
	out, err = jsonschema.For[Out](opts)
	if err != nil {
		panic(err)
	}
	return in, out
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
