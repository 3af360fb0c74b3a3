package mcpserver_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

var (
	readTools  = []string{"list_workspaces", "get_workspace_summary", "list_tickets", "get_ticket", "list_ticket_notes", "list_ticket_history", "list_activity", "find_request", "get_task", "list_tasks", "list_inbox"}
	writeTools = []string{"create_ticket", "update_ticket", "move_ticket", "add_note", "import_tickets", "claim_ticket", "claim_next", "release_ticket", "relate_tickets", "unrelate_tickets", "edit_note", "redact_note", "mark_inbox_read"}
	// taskControl acts on a task by its id, which makes it idempotent
	// without a request_id.
	taskControl = []string{"cancel_task"}
)

// TestCatalog checks what every client relies on: the tool set, a
// description, annotations that match what the tool does, object input and
// output schemas, request_id on every write, and no author argument anywhere.
func TestCatalog(t *testing.T) {
	e := newEnv(t, envOptions{})
	cs := connect(t, e.URL, modernVersion, nil)
	tools := listTools(t, cs)
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
		t.Run(tool.Name, func(t *testing.T) {
			if len(tool.Description) < 40 {
				t.Errorf("description %q is too thin to guide a model", tool.Description)
			}
			a := tool.Annotations
			if a == nil || a.Title == "" {
				t.Fatalf("annotations missing or untitled: %+v", a)
			}
			if a.OpenWorldHint == nil || *a.OpenWorldHint {
				t.Errorf("openWorldHint should be false: the board is a closed world")
			}
			in := schemaOf(t, tool.InputSchema)
			out := schemaOf(t, tool.OutputSchema)
			if in["type"] != "object" || out["type"] != "object" {
				t.Errorf("input type %v, output type %v; both must be object", in["type"], out["type"])
			}
			if in["additionalProperties"] != false {
				t.Errorf("input schema must refuse unknown fields")
			}
			if mentionsAuthor(in) {
				t.Errorf("input schema has an author argument; the author comes from the credential only")
			}
			required, _ := in["required"].([]any)
			switch {
			case slices.Contains(writeTools, tool.Name):
				if a.ReadOnlyHint || !a.IdempotentHint || a.DestructiveHint == nil || *a.DestructiveHint {
					t.Errorf("write tool annotations = %+v, want idempotent, not destructive, not read-only", a)
				}
				if !slices.Contains(required, any("request_id")) {
					t.Errorf("request_id is not required")
				}
				if !strings.Contains(tool.Description, "find_request") {
					t.Errorf("description does not teach the retry discipline (find_request, same request_id)")
				}
			case slices.Contains(taskControl, tool.Name):
				if a.ReadOnlyHint || !a.IdempotentHint || a.DestructiveHint == nil || *a.DestructiveHint {
					t.Errorf("task control annotations = %+v, want idempotent, not destructive, not read-only", a)
				}
				if !slices.Contains(required, any("task_id")) {
					t.Errorf("task_id is not required")
				}
			case slices.Contains(readTools, tool.Name):
				if !a.ReadOnlyHint {
					t.Errorf("read tool is not readOnlyHint")
				}
			default:
				t.Errorf("unexpected tool")
			}
		})
	}
	want := append(append(slices.Clone(readTools), writeTools...), taskControl...)
	slices.Sort(want)
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}
}

func schemaOf(t *testing.T, s any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// mentionsAuthor looks for a property named author or created_by at any depth.
func mentionsAuthor(schema map[string]any) bool {
	props, _ := schema["properties"].(map[string]any)
	for name, sub := range props {
		if name == "author" || name == "created_by" {
			return true
		}
		if m, ok := sub.(map[string]any); ok && mentionsAuthor(m) {
			return true
		}
		if m, ok := sub.(map[string]any); ok {
			if items, ok := m["items"].(map[string]any); ok && mentionsAuthor(items) {
				return true
			}
		}
	}
	return false
}
