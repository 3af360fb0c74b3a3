package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// list_activity answers "what changed since I last looked": the newest
// events first, latest to pass back as since, and for an agent no trace of
// a workspace hidden from AI, also of events written before it was hidden.
func TestListActivity(t *testing.T) {
	onEachStore(t, envOptions{}, func(t *testing.T, e *env) {
		seedPolicyTickets(t, e)
		cs := connect(t, e.URL, modernVersion, nil)
		call[board.TicketResult](t, cs, "create_ticket", map[string]any{"request_id": "a1", "workspace": "inbox", "title": "mine"})

		all := call[board.ActivityList](t, cs, "list_activity", map[string]any{})
		if len(all.Events) != 2 || all.Events[0].Workspace != "inbox" || all.Events[1].Workspace != "reference" {
			t.Fatalf("every workspace for an agent: %+v; want inbox's create, then reference's (private's is hidden)", all.Events)
		}
		if all.Latest == nil || !all.Latest.Equal(all.Events[0].At) {
			t.Fatalf("latest %v, want the newest event's time", all.Latest)
		}
		since := all.Latest.Format("2006-01-02T15:04:05.999999999Z07:00")
		none := call[board.ActivityList](t, cs, "list_activity", map[string]any{"since": since})
		if len(none.Events) != 0 || none.NextCursor != nil {
			t.Errorf("since the latest: %+v, want nothing new", none.Events)
		}
		if msg := callErr(t, cs, "list_activity", map[string]any{"workspace": "private"}); !strings.Contains(msg, "workspace 'private' not found") {
			t.Errorf("a hidden workspace: %q, want it answered as absent", msg)
		}
		if msg := callErr(t, cs, "list_activity", map[string]any{"kind": "ticket.closed"}); !strings.Contains(msg, "use one of ticket.created") {
			t.Errorf("an unknown kind: %q, want the kinds named", msg)
		}

		// A person hides inbox: its earlier events are gone for the agent.
		hidden := board.PolicyHidden
		if _, err := e.Svc.UpdateWorkspace(human(), board.UpdateWorkspaceInput{RequestID: "hide", Workspace: "inbox", AIPolicy: &hidden}); err != nil {
			t.Fatal(err)
		}
		after := call[board.ActivityList](t, cs, "list_activity", map[string]any{})
		for _, ev := range after.Events {
			if ev.Workspace != "reference" {
				t.Errorf("after inbox was hidden the agent still sees %s in %s", ev.Type, ev.Workspace)
			}
		}
		if len(after.Events) != 1 {
			t.Errorf("after inbox was hidden: %d events, want reference's one", len(after.Events))
		}
	})
}
