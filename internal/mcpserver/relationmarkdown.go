package mcpserver

import (
	"fmt"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// relationFields renders a ticket's relations and readiness as fields of
// its Markdown: each related ticket by id, status and title.
func relationFields(d board.TicketDetail, field func(name, value string)) {
	list := func(rs []board.RelatedTicket) string {
		parts := make([]string, len(rs))
		for i, r := range rs {
			parts[i] = fmt.Sprintf("%s (%s) %s", r.ID, r.Status, r.Title)
		}
		return strings.Join(parts, "; ")
	}
	if len(d.BlockedBy) > 0 {
		field("blocked by", list(d.BlockedBy))
	}
	if len(d.Blocks) > 0 {
		field("blocks", list(d.Blocks))
	}
	if d.Parent != nil {
		field("parent", list([]board.RelatedTicket{*d.Parent}))
	}
	if c := d.Children; c.Total > 0 {
		field("sub-tickets", fmt.Sprintf("%d of %d done: %s", c.Done, c.Total, list(c.Tickets)))
	}
	field("ready", fmt.Sprint(d.Ready))
}
