package webhook

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Payload is the JSON body of a delivery, in the Standard Webhooks shape
// (type, timestamp, data) with the event's id and workspace beside them.
type Payload struct {
	ID        string    `json:"id"`
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Workspace string    `json:"workspace"`
	Data      Data      `json:"data"`
}

// Data is what the event says.
type Data struct {
	// Ticket is the event's ticket (nil for an event of the workspace
	// itself), titled as the event left it; an event written before
	// events kept titles gets the title at the time of delivery.
	Ticket     *TicketRef   `json:"ticket,omitempty"`
	Author     string       `json:"author"`
	OnBehalfOf string       `json:"on_behalf_of,omitempty"`
	Source     board.Source `json:"source,omitempty"`
	// Changed names the fields a ticket.updated changed; Changes gives the
	// before and after values of the short ones (title, priority, owner,
	// due, tags). Body and links are only named.
	Changed []string            `json:"changed,omitempty"`
	Changes []board.FieldChange `json:"changes,omitempty"`
	// Status is a move's before and after.
	Status *Change `json:"status,omitempty"`
	Reason string  `json:"reason,omitempty"`
	NoteID string  `json:"note_id,omitempty"`
	// Inbox says why the event is in the person's inbox, on a delivery of
	// a subscription that follows one.
	Inbox *InboxRef `json:"inbox,omitempty"`
}

// InboxRef is the inbox a delivery is for, and why the event is in it.
type InboxRef struct {
	Person string `json:"person"`
	Reason string `json:"reason"`
}

// TicketRef names a ticket and links to it.
type TicketRef struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	URL   string `json:"url"`
}

// Change is a value before and after.
type Change struct {
	Before string `json:"before"`
	After  string `json:"after"`
}

// body writes a delivery's body in the subscription's format; tickets
// link to baseURL + "/tickets/" + id, as on the board. A subscription of
// one person's inbox says why the event is in it.
func body(sub Subscription, ev FeedEvent, baseURL string) ([]byte, error) {
	url := ""
	if ev.Event.TicketID != "" {
		url = baseURL + "/tickets/" + ev.Event.TicketID
	}
	reason := ""
	if sub.Inbox != "" {
		reason = ev.Event.InboxReason(sub.inboxRecipient())
	}
	if sub.Format == FormatSlack {
		text := slackInboxText(ev, reason, url)
		if text == "" {
			text = slackText(ev, url)
		}
		return json.Marshal(map[string]string{"text": text})
	}
	e := ev.Event
	p := Payload{ID: e.ID, Type: e.Type, Timestamp: e.At.UTC(), Workspace: e.Workspace, Data: Data{
		Author: e.Author, OnBehalfOf: e.OnBehalfOf, Source: e.Source, Changed: e.Fields, Changes: e.Changes, Reason: e.Reason, NoteID: e.NoteID}}
	if e.TicketID != "" {
		p.Data.Ticket = &TicketRef{ID: e.TicketID, Title: ticketTitle(ev), URL: url}
	}
	if e.Type == board.EventTicketMoved {
		p.Data.Status = &Change{Before: e.From, After: e.To}
	}
	if reason != "" {
		p.Data.Inbox = &InboxRef{Person: sub.Inbox, Reason: reason}
	}
	return json.Marshal(p)
}

// slackText is one line: who did what to which ticket, with its link in
// Slack's <url|text> form.
func slackText(ev FeedEvent, url string) string {
	e := ev.Event
	who := slackEscape(board.DisplayAuthor(e.Author, e.OnBehalfOf))
	ticket := slackEscape(e.TicketID)
	if title := ticketTitle(ev); title != "" {
		ticket += " “" + slackEscape(title) + "”"
	}
	if url != "" {
		ticket += " <" + url + "|open>"
	}
	switch e.Type {
	case board.EventTicketCreated:
		return fmt.Sprintf("%s created %s", who, ticket)
	case board.EventTicketMoved:
		line := fmt.Sprintf("%s moved %s from %s to %s", who, ticket, e.From, e.To)
		if e.Reason != "" {
			line += ": " + slackEscape(e.Reason)
		}
		return line
	case board.EventTicketUpdated:
		return fmt.Sprintf("%s updated %s (%s)", who, ticket, strings.Join(e.Fields, ", "))
	case board.EventNoteAdded:
		return fmt.Sprintf("%s added a note to %s", who, ticket)
	case board.EventNoteEdited:
		return fmt.Sprintf("%s edited a note on %s", who, ticket)
	case board.EventNoteRedacted:
		return fmt.Sprintf("%s redacted a note on %s: %s", who, ticket, slackEscape(e.Reason))
	case board.EventTicketClaimed:
		return fmt.Sprintf("%s claimed %s", who, ticket)
	case board.EventTicketClaimRenewed:
		return fmt.Sprintf("%s renewed its claim on %s", who, ticket)
	case board.EventTicketReleased:
		return fmt.Sprintf("%s released %s", who, ticket)
	case board.EventTicketClaimBroken:
		return fmt.Sprintf("%s broke %s's claim on %s", who, slackEscape(e.Holder), ticket)
	case board.EventTicketRelated:
		return fmt.Sprintf("%s linked %s: %s %s", who, ticket, strings.ReplaceAll(e.Relation, "_", " "), slackEscape(e.Other))
	case board.EventTicketUnrelated:
		return fmt.Sprintf("%s unlinked %s: no longer %s %s", who, ticket, strings.ReplaceAll(e.Relation, "_", " "), slackEscape(e.Other))
	case TestEventType:
		return fmt.Sprintf("Test message from ticket-ledger for workspace %s, sent by %s", slackEscape(e.Workspace), who)
	}
	return fmt.Sprintf("%s: %s on workspace %s", who, e.Type, slackEscape(e.Workspace))
}

// slackEscape escapes what Slack's mrkdwn reads as control characters.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// ticketTitle is the title the event kept, or for an older event the
// ticket's title read at delivery.
func ticketTitle(ev FeedEvent) string {
	if ev.Event.Title != "" {
		return ev.Event.Title
	}
	return ev.Title
}
