package boardfile_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/boardfile"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// TestExportOrder: a file lists parents before children (every workspace
// first; then each workspace's tickets before their notes and events; a
// person before their tokens), then "end" last, so an import reading it
// line by line always finds what an item belongs to already written. The
// other tests compare files sorted; this one holds the order itself.
func TestExportOrder(t *testing.T) {
	for _, backend := range testbackends.Names() {
		t.Run(backend, func(t *testing.T) {
			f := open(t, backend, testbackends.NewClock(t0))
			grow(t, f, 6)
			lines := strings.Split(strings.TrimSpace(string(export(t, f, boardfile.ExportOptions{WithPeople: true}))), "\n")
			seen := map[string]map[string]bool{}
			mark := func(kind, id string) {
				if seen[kind] == nil {
					seen[kind] = map[string]bool{}
				}
				seen[kind][id] = true
			}
			parentFirst := func(n int, child, kind, id string) {
				if id != "" && !seen[kind][id] {
					t.Errorf("line %d: a %s before its %s %q", n, child, kind, id)
				}
			}
			var item struct {
				Kind      string `json:"kind"`
				Workspace struct {
					Slug string `json:"slug"`
				} `json:"workspace"`
				Ticket struct {
					ID, Workspace string
				} `json:"ticket"`
				Note struct {
					TicketID string `json:"ticket_id"`
				} `json:"note"`
				Event struct {
					Workspace string `json:"workspace"`
					TicketID  string `json:"ticket_id"`
				} `json:"event"`
				Person struct {
					Handle string `json:"handle"`
				} `json:"person"`
				Token struct {
					Handle string `json:"handle"`
				} `json:"token"`
			}
			kinds := map[string]int{}
			for i, line := range lines[1:] {
				n := i + 2
				item.Kind = ""
				if err := json.Unmarshal([]byte(line), &item); err != nil {
					t.Fatalf("line %d: %v", n, err)
				}
				kinds[item.Kind]++
				switch item.Kind {
				case boardfile.KindWorkspace:
					if len(seen) > 1 {
						t.Errorf("line %d: a workspace after other kinds: every workspace comes first", n)
					}
					mark("workspace", item.Workspace.Slug)
				case boardfile.KindTicket:
					parentFirst(n, "ticket", "workspace", item.Ticket.Workspace)
					mark("ticket", item.Ticket.ID)
				case boardfile.KindNote:
					parentFirst(n, "note", "ticket", item.Note.TicketID)
				case boardfile.KindEvent:
					parentFirst(n, "event", "workspace", item.Event.Workspace)
					parentFirst(n, "event", "ticket", item.Event.TicketID)
				case boardfile.KindPerson:
					mark("person", item.Person.Handle)
				case boardfile.KindToken:
					parentFirst(n, "token", "person", item.Token.Handle)
				case boardfile.KindEnd:
					if n != len(lines) {
						t.Errorf("line %d: end before the last line", n)
					}
				}
			}
			for _, k := range []string{boardfile.KindWorkspace, boardfile.KindTicket, boardfile.KindNote, boardfile.KindEvent, boardfile.KindPerson, boardfile.KindToken, boardfile.KindEnd} {
				if kinds[k] == 0 {
					t.Errorf("the board exported no %s line: the order was not tested for it", k)
				}
			}
		})
	}
}
