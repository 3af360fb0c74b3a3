package webhook

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Format is how a delivery's body is written.
type Format string

const (
	// FormatJSON: the event as JSON (payload.go).
	FormatJSON Format = "json"
	// FormatSlack: a Slack incoming-webhook message, {"text": …}.
	FormatSlack Format = "slack"
)

// Subscription is one URL subscribed to a workspace's events.
type Subscription struct {
	ID        string `json:"id"`
	Workspace string `json:"workspace"`
	URL       string `json:"url"`
	// Events filters what is sent; empty sends every event.
	Events []EventFilter `json:"events"`
	// Inbox, a person's handle, narrows the events to those that put an
	// item in that person's inbox ("" : no such narrowing).
	Inbox        string    `json:"inbox,omitempty"`
	Format       Format    `json:"format"`
	Paused       bool      `json:"paused"`
	PausedReason string    `json:"paused_reason,omitempty"`
	CreatedBy    string    `json:"created_by"`
	CreatedAt    time.Time `json:"created_at"`
	Progress     Progress  `json:"progress"`
	// SealedSecret is the signing secret sealed under the server's key
	// (secret.go); it never leaves the server after creation.
	SealedSecret []byte `json:"-"`
}

// EventFilter passes events of one kind; for ticket.moved, To narrows it
// to moves into one status. In JSON it is an object {"kind", "to"} or
// just the kind as a string.
type EventFilter struct {
	Kind string       `json:"kind"`
	To   board.Status `json:"to,omitempty"`
}

// UnmarshalJSON takes either form.
func (f *EventFilter) UnmarshalJSON(b []byte) error {
	var kind string
	if json.Unmarshal(b, &kind) == nil {
		*f = EventFilter{Kind: kind}
		return nil
	}
	type plain EventFilter
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf(`an event filter is a kind ("ticket.moved") or an object {"kind": "ticket.moved", "to": "waiting_human"}`)
	}
	*f = EventFilter(p)
	return nil
}

// TestEventType is the kind of the event "send a test event" posts.
const TestEventType = "webhook.test"

// Kinds are the event kinds a filter may name.
var Kinds = []string{board.EventTicketCreated, board.EventTicketUpdated, board.EventTicketMoved,
	board.EventNoteAdded, board.EventNoteEdited, board.EventNoteRedacted,
	board.EventTicketClaimed, board.EventTicketClaimRenewed, board.EventTicketReleased, board.EventTicketClaimBroken,
	board.EventTicketRelated, board.EventTicketUnrelated, board.EventWorkspaceUpdated, board.EventWorkspaceCreated}

// validateFilters checks a subscription's filters.
func validateFilters(fs []EventFilter) error {
	if len(fs) > len(Kinds)*len(board.Statuses) {
		return board.Errorf(board.CodeInvalid, "events names %d filters; name at most %d", len(fs), len(Kinds)*len(board.Statuses))
	}
	for _, f := range fs {
		if !slices.Contains(Kinds, f.Kind) {
			return board.Errorf(board.CodeInvalid, "events: %q is no event kind; use one of %s", f.Kind, strings.Join(Kinds, ", "))
		}
		if f.To == "" {
			continue
		}
		if f.Kind != board.EventTicketMoved {
			return board.Errorf(board.CodeInvalid, "events: \"to\" narrows only ticket.moved, not %s; remove it", f.Kind)
		}
		if err := board.ValidateStatus(f.To); err != nil {
			return board.Errorf(board.CodeInvalid, "events: \"to\" %q is no status; use one of %v", f.To, board.Statuses)
		}
	}
	return nil
}

// Matches says whether the subscription sends ev: ev passes its event
// filters and, for a subscription of one person's inbox, is in that inbox
// by the rule the inbox keeps (board.Event.InboxReason). It reads only the
// subscription and the event, so every sender (the local feed's, or one fed
// by a stream) decides alike. The test event passes every filter: it is
// sent on request.
func (s Subscription) Matches(ev board.Event) bool {
	if ev.Type == TestEventType {
		return true
	}
	if s.Inbox != "" && ev.InboxReason(s.inboxRecipient()) == "" {
		return false
	}
	if len(s.Events) == 0 {
		return true
	}
	for _, f := range s.Events {
		if f.Kind == ev.Type && (f.To == "" || string(f.To) == ev.To) {
			return true
		}
	}
	return false
}

// inboxRecipient is the inbox the subscription follows, as events name
// their recipients.
func (s Subscription) inboxRecipient() string {
	if s.Inbox == "" {
		return ""
	}
	return "human:" + s.Inbox
}
