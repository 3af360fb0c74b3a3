package mcpserver_test

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Outputs are not validated on every call (see add in tools.go), so this
// checks a real output of every tool, with optional fields set and unset,
// against the output schema tools/list announces.
func TestOutputsMatchTheirSchemas(t *testing.T) {
	onEachStore(t, envOptions{}, func(t *testing.T, e *env) {
		cs := connect(t, e.URL, modernVersion, nil)
		schemas := map[string]*jsonschema.Resolved{}
		for _, tool := range listTools(t, cs) {
			raw, err := json.Marshal(tool.OutputSchema)
			if err != nil {
				t.Fatal(err)
			}
			var s jsonschema.Schema
			if err := json.Unmarshal(raw, &s); err != nil {
				t.Fatal(err)
			}
			resolved, err := s.Resolve(nil)
			if err != nil {
				t.Fatalf("%s output schema: %v", tool.Name, err)
			}
			schemas[tool.Name] = resolved
		}
		if _, err := e.Svc.CreateTicket(human(), board.CreateTicketInput{RequestID: "h", Workspace: "inbox", NewTicket: board.NewTicket{Title: "Waiting", Due: "2026-12-01"}}); err != nil {
			t.Fatal(err)
		}
		calls := []struct {
			tool string
			args map[string]any
		}{
			{"create_ticket", map[string]any{"request_id": "o1", "workspace": "inbox", "title": "Full", "body": "b", "priority": "urgent",
				"owner": "ai:tester", "due": "2026-12-02", "tags": []string{"a"}, "links": []map[string]string{{"kind": "task", "ref": "t-1"}}}},
			{"create_ticket", map[string]any{"request_id": "o1", "workspace": "inbox", "title": "Full", "body": "b", "priority": "urgent",
				"owner": "ai:tester", "due": "2026-12-02", "tags": []string{"a"}, "links": []map[string]string{{"kind": "task", "ref": "t-1"}}}},
			{"update_ticket", map[string]any{"request_id": "o2", "id": "inbox-1", "owner": nil}},
			{"move_ticket", map[string]any{"request_id": "o3", "id": "inbox-1", "status": "done", "reason": "r"}},
			{"move_ticket", map[string]any{"request_id": "o4", "id": "inbox-2", "status": "waiting_ai"}},
			{"add_note", map[string]any{"request_id": "o5", "id": "inbox-2", "body": "n"}},
			{"list_workspaces", map[string]any{}},
			{"get_workspace_summary", map[string]any{"workspace": "inbox"}},
			{"list_tickets", map[string]any{"workspace": "inbox", "limit": 1}},
			{"get_ticket", map[string]any{"id": "inbox-1"}},
			{"get_ticket", map[string]any{"id": "inbox-2"}},
			{"list_ticket_notes", map[string]any{"id": "inbox-2"}},
			{"list_ticket_notes", map[string]any{"id": "inbox-1", "limit": 1}},
			{"list_ticket_history", map[string]any{"id": "inbox-1", "limit": 1}},
			{"list_ticket_history", map[string]any{"id": "inbox-2"}},
			{"list_activity", map[string]any{"workspace": "inbox", "limit": 2}},
			{"list_activity", map[string]any{"kind": "ticket.moved", "since": "2020-01-01T00:00:00Z"}},
			{"find_request", map[string]any{"request_id": "o3"}},
			{"find_request", map[string]any{"request_id": "never"}},
			{"import_tickets", map[string]any{"request_id": "o6", "workspace": "inbox", "tickets": []map[string]any{{"title": "one"}, {"title": "two", "tags": []string{"x"}}}}},
			{"find_request", map[string]any{"request_id": "o6"}},
			{"list_tasks", map[string]any{}},
			{"claim_next", map[string]any{"request_id": "o7", "workspace": "inbox", "status": "waiting_ai"}},
			{"claim_next", map[string]any{"request_id": "o8", "workspace": "inbox", "tag": "nothing-has-it"}},
			{"claim_ticket", map[string]any{"request_id": "o9", "id": "inbox-1", "lease_seconds": 60}},
			{"release_ticket", map[string]any{"request_id": "o10", "id": "inbox-3", "status": "doing", "reason": "started"}},
			{"relate_tickets", map[string]any{"request_id": "o11", "id": "inbox-1", "kind": "blocks", "other": "inbox-2"}},
			{"unrelate_tickets", map[string]any{"request_id": "o12", "id": "inbox-1", "kind": "parent", "other": "inbox-2"}},
			{"get_ticket", map[string]any{"id": "inbox-2"}},
			{"list_inbox", map[string]any{"limit": 5}},
			{"mark_inbox_read", map[string]any{"request_id": "o13", "all": true}},
		}
		seen := map[string]bool{}
		for _, c := range calls {
			res := callRaw(t, cs, c.tool, c.args)
			if res.IsError {
				t.Fatalf("%s: %s", c.tool, errorText(res))
			}
			var instance any
			raw, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(raw, &instance); err != nil {
				t.Fatal(err)
			}
			if err := schemas[c.tool].Validate(instance); err != nil {
				t.Errorf("%s output does not match its schema: %v\n%s", c.tool, err, raw)
			}
			seen[c.tool] = true
		}
		// The task the import made: read it, cancel it (it ended already).
		var imported struct {
			TaskID string `json:"task_id"`
		}
		raw, _ := json.Marshal(callRaw(t, cs, "find_request", map[string]any{"request_id": "o6"}).StructuredContent)
		var found struct {
			Result json.RawMessage `json:"result"`
		}
		_ = json.Unmarshal(raw, &found)
		_ = json.Unmarshal(found.Result, &imported)
		for _, tool := range []string{"get_task", "cancel_task"} {
			res := callRaw(t, cs, tool, map[string]any{"task_id": imported.TaskID})
			if res.IsError {
				t.Fatalf("%s: %s", tool, errorText(res))
			}
			var instance any
			raw, _ := json.Marshal(res.StructuredContent)
			_ = json.Unmarshal(raw, &instance)
			if err := schemas[tool].Validate(instance); err != nil {
				t.Errorf("%s output does not match its schema: %v\n%s", tool, err, raw)
			}
			seen[tool] = true
		}
		// The note add_note wrote, edited by its author over MCP; an
		// admin's redaction of it (no agent may redact) through the
		// service, its answer as the tool would send it.
		notes := call[board.NoteList](t, cs, "list_ticket_notes", map[string]any{"id": "inbox-2"})
		noteID := notes.Notes[len(notes.Notes)-1].ID
		res := callRaw(t, cs, "edit_note", map[string]any{"request_id": "o-edit", "note_id": noteID, "body": "n, corrected"})
		if res.IsError {
			t.Fatalf("edit_note: %s", errorText(res))
		}
		redacted, err := e.Svc.RedactNote(human(), board.RedactNoteInput{RequestID: "o-redact", NoteID: noteID, Reason: "test"})
		if err != nil {
			t.Fatal(err)
		}
		for tool, out := range map[string]any{"edit_note": res.StructuredContent, "redact_note": redacted} {
			var instance any
			raw, _ := json.Marshal(out)
			_ = json.Unmarshal(raw, &instance)
			if err := schemas[tool].Validate(instance); err != nil {
				t.Errorf("%s output does not match its schema: %v\n%s", tool, err, raw)
			}
			seen[tool] = true
		}
		if len(seen) != len(schemas) {
			t.Fatalf("checked %d tools of %d", len(seen), len(schemas))
		}
	})
}
