package board

import (
	"context"
	"time"
)

// Why an item is in someone's inbox; one event is one item per recipient,
// under the first of these that applies.
const (
	// InboxMention: the event's text (a body, a note, a move's reason)
	// mentions the recipient.
	InboxMention = "mention"
	// InboxAssigned: the ticket became the recipient's (its owner).
	InboxAssigned = "assigned"
	// InboxWaiting: the ticket moved to waiting_human and is the
	// recipient's, or no one's.
	InboxWaiting = "waiting"
	// InboxActivity: a note or a move on a ticket the recipient created
	// (or an agent created for them) or owns.
	InboxActivity = "activity"
)

// MaxInboxRecipients bounds the inbox items one write adds: a ticket of no
// one's moved to waiting_human goes to every person, and every recipient
// is written with the event, in its transaction (on DynamoDB two items
// each, within the 100 items of a transaction beside the ticket's own and
// its tags'). People beyond the bound (by handle) see the ticket on the
// board, not in their inbox.
const MaxInboxRecipients = 25

// UnreadCountCap is how far an unread count is counted: a store reads at
// most this many unread items, and a count that reaches it is shown as
// "99+".
const UnreadCountCap = 100

// InboxItem is one entry of an inbox: an event that concerns its reader.
type InboxItem struct {
	// ID is the event's id: an event is at most one item of an inbox.
	ID        string `json:"id"`
	Reason    string `json:"reason" jsonschema:"why it is in your inbox: mention, assigned, waiting (a ticket waiting for a person that is yours or no one's) or activity (a note or move on a ticket you created or own)"`
	Workspace string `json:"workspace"`
	TicketID  string `json:"ticket_id"`
	Title     string `json:"title" jsonschema:"the ticket's title when the event happened"`
	EventType string `json:"event_type" jsonschema:"the event: ticket.created, ticket.updated, ticket.moved or note.added"`
	Author    string `json:"author"`
	// OnBehalfOf is the person the author (an agent) acted for, if any.
	OnBehalfOf string    `json:"on_behalf_of,omitempty"`
	At         time.Time `json:"at"`
	Read       bool      `json:"read"`
}

// InboxEntry is an item as a write stores it, with whose inbox it is in.
type InboxEntry struct {
	// Recipient is the inbox's key: a person's author (human:alice), or an
	// agent with its person as Principal.LedgerKey names it
	// (ai:claude|human:alice), since alice's claude is not bob's.
	Recipient string
	Item      InboxItem
}

// InboxQuery asks for one page of an inbox, newest first.
type InboxQuery struct {
	Recipient  string
	UnreadOnly bool
	// Before is the id of the last item of the previous page ("": from
	// the newest); items sort by id, which orders them by time.
	Before string
	Limit  int
}

// InboxStore keeps inboxes. Items are written by the board's writes, with
// their event and in the same transaction (CreatePlan.Inbox, SaveTx.Inbox);
// this contract is what reading and marking them needs. Every backend runs
// the Inbox group of the storetest suite.
type InboxStore interface {
	// ListInbox returns up to q.Limit items, newest first, in one indexed
	// read (SQLite) or one Query (DynamoDB), and whether more follow.
	ListInbox(ctx context.Context, q InboxQuery) (items []InboxItem, more bool, err error)
	// CountUnread counts the recipient's unread items, reading at most
	// limit of them: the answer is min(unread, limit).
	CountUnread(ctx context.Context, recipient string, limit int) (int, error)
	// MarkInboxRead marks the recipient's items with these ids read; ids
	// that are not in the inbox are ignored. It answers how many changed.
	MarkInboxRead(ctx context.Context, recipient string, ids []string) (int, error)
	// MarkAllInboxRead marks every unread item of the recipient read and
	// answers how many changed.
	MarkAllInboxRead(ctx context.Context, recipient string) (int, error)
}

// PeopleDirectory is what mentions need to know about people: whether a
// handle is someone, and everyone (a ticket of no one's waiting for a
// person is in every person's inbox). internal/auth's people store is one.
type PeopleDirectory interface {
	GetPerson(ctx context.Context, handle string) (Person, error)
	ListPeople(ctx context.Context) ([]Person, error)
}

// orStores is want when set, else the store when it is one, else nil: a
// backend that keeps everything serves every contract without wiring.
func orStores[T any](want T, store Store) T {
	if any(want) != nil {
		return want
	}
	if s, ok := store.(T); ok {
		return s
	}
	return want
}
