package mcpserver

import (
	"fmt"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// workspaceMarkdown renders get_workspace_summary's answer as a Markdown
// document. The summary is bounded by the board already (20 tickets per
// list, 20 events) and shows no bodies, so nothing is cut here.
func workspaceMarkdown(sum board.WorkspaceSummary) string {
	w := sum.Workspace
	var b strings.Builder
	fmt.Fprintf(&b, "# Workspace %s (%s)\n\n", w.Name, w.Slug)
	fmt.Fprintf(&b, "AI policy: %s. %s\n\n", w.AIPolicy, policyMeaning(w.AIPolicy))
	b.WriteString("## Tickets per status\n\n")
	for _, st := range board.Statuses {
		fmt.Fprintf(&b, "- %s: %d\n", st, sum.Counts[st])
	}
	fmt.Fprintf(&b, "\nlist_tickets with workspace %q (and a status) lists them.\n", w.Slug)

	b.WriteString("\n## Waiting for AI\n\n")
	ticketLines(&b, sum.WaitingAI)
	b.WriteString("\n## Due within 7 days (overdue included)\n\n")
	ticketLines(&b, sum.DueSoon)
	b.WriteString("\n## Recent events\n\n")
	if len(sum.RecentEvents) == 0 {
		b.WriteString("(none)\n")
	}
	for _, e := range sum.RecentEvents {
		subject := e.TicketID
		if subject == "" {
			subject = "workspace"
		}
		fmt.Fprintf(&b, "- %s %s: %s\n", stamp(e.At), subject, eventLine(e))
	}
	fmt.Fprintf(&b, "\nRead a ticket as ticket://<id>, or with get_ticket.\n")
	return b.String()
}

// policyMeaning says what a workspace's policy lets an agent do.
func policyMeaning(p board.AIPolicy) string {
	if p == board.PolicyReadOnly {
		return "Agents may read its tickets but not change them: propose changes to a person instead."
	}
	return "Agents may read and change its tickets."
}

// ticketLines lists tickets one a line: id, title and the fields a
// person sorts by.
func ticketLines(b *strings.Builder, ts []board.Ticket) {
	if len(ts) == 0 {
		b.WriteString("(none)\n")
	}
	for _, t := range ts {
		fmt.Fprintf(b, "- %s\n", ticketLine(t))
	}
}

// ticketLine is one ticket on one line.
func ticketLine(t board.Ticket) string {
	line := fmt.Sprintf("%s: %s [%s, priority %s, owner %s", t.ID, t.Title, t.Status, t.Priority, orNone(t.Owner))
	if t.Due != nil {
		line += ", due " + *t.Due
	}
	return line + "]"
}
