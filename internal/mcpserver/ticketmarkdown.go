package mcpserver

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A ticket resource is attached to a conversation whole, so it is bounded
// far below a tool's answer (board.MaxAnswerBytes): enough to work from,
// and what is left out is named with the tool that reads it. A body may be
// 20 000 characters and a note 10 000; get_ticket reads up to
// board.DetailNotes notes and board.DetailEvents events.
const (
	resourceBodyChars = 8000 // of a ticket's description
	resourceNotes     = 10   // the newest notes shown
	resourceNoteChars = 1500 // of each note
	resourceEvents    = 10   // the newest history events shown
)

// ticketMarkdown renders what get_ticket answered as a Markdown document.
func ticketMarkdown(d board.TicketDetail) string {
	t := d.Ticket
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: %s\n\n", t.ID, t.Title)
	field := func(name, value string) { fmt.Fprintf(&b, "- %s: %s\n", name, value) }
	field("workspace", t.Workspace)
	field("status", string(t.Status))
	field("priority", string(t.Priority))
	field("owner", orNone(t.Owner))
	field("due", orNone(t.Due))
	if len(t.Tags) > 0 {
		field("tags", strings.Join(t.Tags, ", "))
	}
	if c := t.Claim; c != nil {
		field("claimed", fmt.Sprintf("by %s until %s", board.DisplayAuthor(c.By, c.For), stamp(c.Until)))
	}
	relationFields(d, field)
	field("created", fmt.Sprintf("%s by %s", stamp(t.CreatedAt), t.CreatedBy))
	field("updated", stamp(t.UpdatedAt))
	if t.CompletedAt != nil {
		field("completed", stamp(*t.CompletedAt))
	}
	field("version", fmt.Sprint(t.Version))
	field("url", t.URL)
	for _, l := range t.Links {
		title := l.Title
		if title == "" {
			title = l.Ref
		}
		field("link", fmt.Sprintf("%s (%s: %s)", title, l.Kind, l.Ref))
	}

	b.WriteString("\n## Description\n\n")
	if t.Body == "" {
		b.WriteString("(none)\n")
	} else {
		body, cut := clipChars(t.Body, resourceBodyChars)
		b.WriteString(body)
		b.WriteString("\n")
		if cut {
			fmt.Fprintf(&b, "\n*[The description is cut at %d of its %d characters: call get_ticket with id %q for the whole of it.]*\n",
				resourceBodyChars, utf8.RuneCountInString(t.Body), t.ID)
		}
	}

	b.WriteString("\n## Notes\n\n")
	notes := d.Notes
	if len(notes) > resourceNotes {
		notes = notes[len(notes)-resourceNotes:]
	}
	if len(notes) < len(d.Notes) || d.NotesCursor != nil {
		fmt.Fprintf(&b, "*[Only the newest %d notes are shown: call list_ticket_notes with id %q to page back through the older ones.]*\n\n", len(notes), t.ID)
	}
	if len(notes) == 0 {
		b.WriteString("(none)\n")
	}
	for _, n := range notes {
		fmt.Fprintf(&b, "### %s by %s%s\n\n", stamp(n.CreatedAt), board.DisplayAuthor(n.Author, n.OnBehalfOf), noteMark(n))
		body, cut := clipChars(n.Body, resourceNoteChars)
		b.WriteString(body)
		b.WriteString("\n")
		if cut {
			fmt.Fprintf(&b, "\n*[This note is cut at %d of its %d characters: list_ticket_notes with id %q has it whole.]*\n",
				resourceNoteChars, utf8.RuneCountInString(n.Body), t.ID)
		}
		b.WriteString("\n")
	}

	b.WriteString("## History\n\n")
	events := d.History
	if len(events) > resourceEvents {
		events = events[len(events)-resourceEvents:]
	}
	if len(events) < len(d.History) || d.HistoryCursor != nil {
		fmt.Fprintf(&b, "*[Only the newest %d events are shown: call list_ticket_history with id %q for the older ones.]*\n\n", len(events), t.ID)
	}
	for _, e := range events {
		fmt.Fprintf(&b, "- %s %s\n", stamp(e.At), eventLine(e))
	}
	return b.String()
}

// eventLine says what an event did and who did it, on one line.
func eventLine(e board.Event) string {
	var what string
	switch e.Type {
	case board.EventTicketCreated:
		what = "created"
	case board.EventTicketMoved:
		what = fmt.Sprintf("moved %s → %s", e.From, e.To)
		if e.Holder != "" {
			what += ", ending the claim of " + e.Holder
		}
		if e.Reason != "" {
			reason, _ := clipChars(oneLine(e.Reason), 200)
			what += fmt.Sprintf(" (%s)", reason)
		}
	case board.EventTicketUpdated:
		what = "updated " + strings.Join(e.Fields, ", ")
	case board.EventNoteAdded:
		what = "note added"
	case board.EventNoteEdited:
		what = "note edited"
	case board.EventNoteRedacted:
		reason, _ := clipChars(oneLine(e.Reason), 200)
		what = fmt.Sprintf("note redacted (%s)", reason)
	case board.EventTicketClaimed:
		what = "claimed"
	case board.EventTicketClaimRenewed:
		what = "claim renewed"
	case board.EventTicketReleased, board.EventTicketClaimBroken:
		what = "released"
		if e.Type == board.EventTicketClaimBroken {
			what = "broke the claim of " + e.Holder
		}
		if e.To != "" {
			what += fmt.Sprintf(", moved %s → %s", e.From, e.To)
		}
	case board.EventTicketRelated:
		what = "linked: " + board.RelationPhrase(e.Relation, e.Other)
	case board.EventTicketUnrelated:
		what = "unlinked: " + board.RelationPhrase(e.Relation, e.Other)
	default:
		what = e.Type
	}
	who := e.Author
	if e.OnBehalfOf != "" {
		who += " for " + e.OnBehalfOf
	}
	line := fmt.Sprintf("%s by %s (%s)", what, who, e.Source)
	if e.RequestID != "" {
		line += ", request " + e.RequestID
	}
	return line
}

func orNone(s *string) string {
	if s == nil || *s == "" {
		return "none"
	}
	return *s
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// clipChars keeps the first max characters of s (whole runes) and says
// whether anything was cut.
func clipChars(s string, max int) (string, bool) {
	n := 0
	for i := range s {
		if n == max {
			return s[:i], true
		}
		n++
	}
	return s, false
}

// oneLine folds line breaks into spaces, for text shown inside a list item.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
