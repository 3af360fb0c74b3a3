package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// TestImportPlan writes a plan with one import_tickets call: rows named by
// key, related to each other, answered with the ticket of each key; a plan
// that breaks a rule is a tool error naming the row, with nothing imported.
func TestImportPlan(t *testing.T) {
	for _, backend := range relationBackends {
		t.Run("store="+backend, func(t *testing.T) {
			e := newEnv(t, envOptions{backend: backend})
			cs := connect(t, e.URL, modernVersion, nil)
			bad := callErr(t, cs, "import_tickets", map[string]any{"request_id": "bad", "workspace": "inbox", "tickets": []map[string]any{
				{"title": "a", "key": "a", "blocked_by": []string{"b"}}, {"title": "b", "key": "b", "blocked_by": []string{"a"}}}})
			if !strings.Contains(bad, "cycle") || !strings.Contains(bad, "tickets[0]") {
				t.Errorf("a cycle of rows: %s", bad)
			}
			res := call[board.ImportResult](t, cs, "import_tickets", map[string]any{"request_id": "plan", "workspace": "inbox", "tickets": []map[string]any{
				{"title": "Parser epic", "key": "epic"},
				{"title": "Write the parser", "key": "parser", "parent": "epic"},
				{"title": "Ship the parser", "key": "ship", "parent": "epic", "blocked_by": []string{"parser"}}}})
			if res.Status != board.TaskCompleted || res.Imported != 3 || res.Keys["epic"] != "inbox-1" || res.Keys["ship"] != "inbox-3" {
				t.Fatalf("plan import: %+v (the refused one must have taken no ticket number)", res)
			}
			d := call[board.TicketDetail](t, cs, "get_ticket", map[string]any{"id": "inbox-3"})
			if len(d.BlockedBy) != 1 || d.BlockedBy[0].ID != "inbox-2" || d.Parent == nil || d.Parent.ID != "inbox-1" || d.Ready {
				t.Errorf("get_ticket inbox-3: blocked_by %+v parent %+v ready %v", d.BlockedBy, d.Parent, d.Ready)
			}
		})
	}
}
