package operations_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/operations"
)

// TestEveryOperationIsOfferedAndNamedOnce: an operation is a tool, a route
// or both; tool names, operationIds and method+pattern pairs are each used
// once, so no surface serves two use cases under one name.
func TestEveryOperationIsOfferedAndNamedOnce(t *testing.T) {
	seen := map[string]bool{}
	once := func(key string) {
		if seen[key] {
			t.Errorf("%s is declared twice", key)
		}
		seen[key] = true
	}
	for i, op := range operations.All() {
		if op.Tool == nil && op.Route == nil {
			t.Errorf("operation %d is neither a tool nor a route", i)
		}
		if op.Tool != nil {
			once("tool " + op.Tool.Name)
			if op.Tool.Title == "" || op.Tool.Description == "" {
				t.Errorf("tool %s lacks a title or a description", op.Tool.Name)
			}
		}
		if op.Route != nil {
			once("operationId " + op.Route.ID)
			once("route " + op.Route.Method + " " + op.Route.Pattern)
			if op.Route.Summary == "" || op.Route.Description == "" || op.Route.Status == 0 {
				t.Errorf("route %s lacks a summary, a description or its status", op.Route.ID)
			}
		}
	}
}

// TestWritesTeachTheRetryRule: every write tool that takes a request_id
// tells the model how to retry it, and no read tool takes one.
func TestWritesTeachTheRetryRule(t *testing.T) {
	for _, op := range operations.All() {
		if op.Tool == nil {
			continue
		}
		_, takesKey := op.InputSchema().Properties["request_id"]
		switch {
		case op.Kind == operations.Write && takesKey && !strings.HasSuffix(op.Tool.Description, operations.WriteNote):
			t.Errorf("write tool %s takes a request_id but does not end with the retry rule", op.Tool.Name)
		case op.Kind == operations.Read && takesKey && op.Tool.Name != "find_request":
			t.Errorf("read tool %s takes a request_id", op.Tool.Name)
		}
	}
}

// TestDecodeMakesTheOperationsInput: arguments decode into the input type
// the use case takes, and a wrong type is an error, not a zero value.
func TestDecodeMakesTheOperationsInput(t *testing.T) {
	var create operations.Operation
	for _, op := range operations.All() {
		if op.Tool != nil && op.Tool.Name == "create_ticket" {
			create = op
		}
	}
	in, err := create.Decode([]byte(`{"workspace":"inbox","title":"Write it once","request_id":"r-1"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := in.(*board.CreateTicketInput); !ok || got.Title != "Write it once" || got.Workspace != "inbox" {
		t.Fatalf("decoded %#v, want a *board.CreateTicketInput with the title", in)
	}
	if _, err := create.Decode([]byte(`{"title":42}`)); err == nil {
		t.Error("a number as the title decoded")
	}
	if _, err := create.Decode(nil); err != nil {
		t.Errorf("no arguments: %v, want the zero input", err)
	}
}

func TestArgumentHint(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"title"}, ""},
		{[]string{"author"}, "leave author out"},
		{[]string{"created_by"}, "created_by is decided by the server"},
	} {
		got := operations.ArgumentHint(func(n string) bool { return slices.Contains(c.names, n) })
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%v: %q, want %q", c.names, got, c.want)
		}
	}
}
