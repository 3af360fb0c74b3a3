package boardfile_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/boardfile"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// TestExportOneWorkspace: --workspace exports that workspace's items and
// the records of the writes to it (by its slug, or by one of its tickets'
// ids), nothing of the others, and no people unless asked.
func TestExportOneWorkspace(t *testing.T) {
	clock := testbackends.NewClock(t0)
	src := open(t, testbackends.SQLite, clock)
	grow(t, src, 4)
	file := export(t, src, boardfile.ExportOptions{Workspace: "ops"})
	requests := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(file)), "\n")[1:] {
		var item struct {
			Kind      string          `json:"kind"`
			Workspace json.RawMessage `json:"workspace"`
			Ticket    struct{ Workspace string }
			Event     struct{ Workspace string }
			Request   struct {
				Key struct {
					RequestID string `json:"request_id"`
				} `json:"key"`
			}
		}
		if err := json.Unmarshal([]byte(l), &item); err != nil {
			t.Fatal(err)
		}
		switch item.Kind {
		case boardfile.KindWorkspace:
			if !strings.Contains(string(item.Workspace), `"slug":"ops"`) {
				t.Errorf("another workspace: %s", l)
			}
		case boardfile.KindTicket:
			if item.Ticket.Workspace != "ops" {
				t.Errorf("another workspace's ticket: %s", l)
			}
		case boardfile.KindEvent:
			if item.Event.Workspace != "ops" {
				t.Errorf("another workspace's event: %s", l)
			}
		case boardfile.KindRequest:
			requests[item.Request.Key.RequestID] = true
		case boardfile.KindPerson, boardfile.KindToken:
			t.Errorf("people without --with-people: %s", l)
		}
	}
	for _, want := range []string{"ws-ops", "create-1", "upd-2", "mv-3", "note-1"} {
		if !requests[want] {
			t.Errorf("the record of %s is missing; got %v", want, requests)
		}
	}
	for _, other := range []string{"ws-ref", "inbox-1"} {
		if requests[other] {
			t.Errorf("the record of %s, a write to another workspace, was exported", other)
		}
	}
}
