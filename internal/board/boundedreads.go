package board

import (
	"context"
	"time"
	"unicode/utf8"
)

// BoundedReads are the reads whose cost does not grow with the board: each
// touches a number of rows or items bounded by what it returns, plus a
// constant (docs/decisions.md, "Reading"). Every one of them takes
// the policies the caller may read and decides the workspace's policy before
// it reads anything else: a ticket the caller may not see costs what an
// absent one costs.
type BoundedReads interface {
	// ReadTicket returns a ticket with its newest q.Notes notes and
	// q.Events history events, each list oldest first, and whether older
	// ones exist. ErrNotFound when the ticket does not exist; *PolicyError
	// (with nothing else read) when its workspace's policy is not in
	// q.Readable.
	ReadTicket(ctx context.Context, q TicketRead) (TicketActivity, error)
	// ListNotes returns up to q.Limit notes of a ticket that come before
	// q.Before (nil: the newest), oldest first. Errors as ReadTicket.
	ListNotes(ctx context.Context, q ActivityQuery) (NotePage, error)
	// ListHistory is ListNotes for the ticket's history events.
	ListHistory(ctx context.Context, q ActivityQuery) (EventPage, error)
	// ReadSummary returns a workspace with its counts, its newest
	// waiting_ai tickets, its open tickets due by q.DueBy (earliest due
	// first) and its newest events. ErrNotFound when the workspace does not
	// exist; *PolicyError (with no ticket or event read) when its policy is
	// not in q.Readable.
	ReadSummary(ctx context.Context, q SummaryQuery) (SummaryRead, error)
}

// Order of a ticket's activity: notes by (CreatedAt, ID) and events by
// (At, ID), oldest first. The service stamps both from its clock as it
// writes them, so this is also the order they were written in.

// Position is where a note or an event sits in its ticket's activity: its
// time and id. Pages continue before a position.
type Position struct {
	At time.Time
	ID string
}

// TicketRead asks for a ticket and the newest of its activity.
type TicketRead struct {
	ID     string
	Notes  int // how many of the newest notes
	Events int // how many of the newest history events
	// Readable: nil reads any workspace; otherwise the policies the caller
	// may read (AI callers: not hidden).
	Readable []AIPolicy
}

// TicketActivity is what ReadTicket returns.
type TicketActivity struct {
	Ticket      Ticket
	Policy      AIPolicy
	Notes       []Note  // oldest first
	History     []Event // oldest first
	MoreNotes   bool    // notes older than Notes[0] exist
	MoreHistory bool    // events older than History[0] exist
}

// ActivityQuery pages one ticket's notes or history, newest pages first.
type ActivityQuery struct {
	TicketID string
	Before   *Position // nil: from the newest
	Limit    int
	Readable []AIPolicy
}

// NotePage is one page of a ticket's notes, oldest first; More says older
// notes exist before the first one.
type NotePage struct {
	Notes []Note
	More  bool
}

// EventPage is one page of a ticket's history, oldest first; More says
// older events exist before the first one.
type EventPage struct {
	Events []Event
	More   bool
}

// SummaryQuery asks for what get_workspace_summary shows.
type SummaryQuery struct {
	Workspace string
	Readable  []AIPolicy
	Waiting   int    // newest waiting_ai tickets
	DueBy     string // YYYY-MM-DD: open tickets due on or before it
	Due       int    // how many of them, earliest due first
	Events    int    // newest workspace events
	// MaxBytes bounds the text (TextBytes) of each ticket list: a store
	// stops adding tickets to a list once it holds this much. 0: no bound.
	MaxBytes int
}

// SummaryRead is what ReadSummary returns. DueSoon is ordered by due date,
// then by number; open means any status but done.
type SummaryRead struct {
	Workspace Workspace
	WaitingAI []Ticket
	DueSoon   []Ticket
	Events    []Event // newest first
}

// TextBytes is how many bytes a ticket's text takes as JSON (jsonBytes):
// what its answer grows with. Stores use it to stop reading a page before
// it holds far more than an answer may carry.
func (t Ticket) TextBytes() int {
	n := jsonBytes(t.Title) + jsonBytes(t.Body)
	for _, l := range t.Links {
		n += jsonBytes(l.Ref) + jsonBytes(l.Title)
	}
	for _, tag := range t.Tags {
		n += len(tag)
	}
	if t.Owner != nil {
		n += len(*t.Owner)
	}
	return n
}

// TextBudget is the rule every store's reads keep, written once: tickets
// are taken in order until the next one would bring their text
// (TextBytes) over Max, and the first is always taken, so a page is never
// empty for want of room. Max 0 is no bound.
type TextBudget struct {
	Max   int
	used  int
	taken int
}

// Take says whether t still fits, and counts it when it does.
func (b *TextBudget) Take(t Ticket) bool {
	n := t.TextBytes()
	if b.Max > 0 && b.taken > 0 && b.used+n > b.Max {
		return false
	}
	b.used += n
	b.taken++
	return true
}

// TextBytes is how many bytes a note's body takes as JSON.
func (n Note) TextBytes() int { return jsonBytes(n.Body) }

// TextBytes is how many bytes an event's variable parts take as JSON:
// every one is counted as it is written, not as the service bounds it, so
// an answer's estimate holds whatever a store holds.
func (e Event) TextBytes() int {
	n := jsonBytes(e.Reason) + jsonBytes(e.RequestID) + jsonBytes(e.From) + jsonBytes(e.To) + jsonBytes(e.NoteID) + jsonBytes(e.Title)
	for _, f := range e.Fields {
		n += jsonBytes(f) + 3
	}
	for _, c := range e.Changes {
		n += jsonBytes(c.Field) + valueBytes(c.Before) + valueBytes(c.After) + 40 // the keys and punctuation
	}
	return n
}

// valueBytes is how many bytes a change's value takes as JSON: a string,
// a list of strings (as written or as read back from JSON), or null.
func valueBytes(v any) int {
	switch v := v.(type) {
	case string:
		return jsonBytes(v) + 2
	case []string:
		n := 2
		for _, s := range v {
			n += jsonBytes(s) + 3
		}
		return n
	case []any:
		n := 2
		for _, s := range v {
			n += valueBytes(s) + 1
		}
		return n
	}
	return 4 // null, or a value no store writes: counted as its smallest
}

// jsonBytes is the length of s as a JSON string (without its quotes), as
// encoding/json writes it: a control character, <, >, & or a line or
// paragraph separator takes 6 bytes (\u003c), a quote, a backslash, a
// newline, a return or a tab 2, anything else its UTF-8 length.
func jsonBytes(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t':
			n += 2
		case r < 0x20 || r == '<' || r == '>' || r == '&' || r == '\u2028' || r == '\u2029' || r == utf8.RuneError:
			n += 6
		default:
			n += utf8.RuneLen(r)
		}
	}
	return n
}

// readablePolicies are the policies a principal may read: people read
// every workspace (nil), AI every one but hidden ones.
func readablePolicies(p Principal) []AIPolicy {
	if !p.IsAI() {
		return nil
	}
	return []AIPolicy{PolicyReadWrite, PolicyReadOnly}
}
