package board

import (
	"context"
	"errors"
	"time"
)

// A ticket's notes and history are read newest first, a page at a time:
// get_ticket carries the newest DetailNotes notes and DetailEvents events
// and a cursor for each list when older ones exist; list_ticket_notes and
// list_ticket_history continue from such a cursor. Every page is in
// chronological order (oldest first), so pages read back in time like a
// conversation scrolled upwards.
const (
	DetailNotes  = 20
	DetailEvents = 20
)

// Which list an activity cursor continues; each is also the kind of
// cursor it is sealed as.
const (
	activityNotes   = cursorNotes
	activityHistory = cursorHistory
)

// activityCursor is sealed (cursorseal.go; its kind is the list): the ticket, the list, and the
// position to continue before (none: from the newest, when an answer was cut
// to size before it could show any).
type activityCursor struct {
	Ticket string     `json:"t"`
	List   string     `json:"l"`
	At     *time.Time `json:"a,omitempty"`
	ID     string     `json:"i,omitempty"`
}

func encodeActivityCursor(seal *cursorSeal, ticket, list string, before *Position) *string {
	c := activityCursor{Ticket: ticket, List: list}
	if before != nil {
		at := before.At.UTC()
		c.At, c.ID = &at, before.ID
	}
	s := seal.seal(list, c)
	return &s
}

func decodeActivityCursor(seal *cursorSeal, s, ticket, list, tool string) (*Position, error) {
	var c activityCursor
	if !seal.open(list, s, &c) || c.List != list || (c.At == nil) != (c.ID == "") {
		return nil, invalid("cursor is not a %s cursor this server issued (altered, made up, or from another list or server); pass %s_cursor from get_ticket or next_cursor from %s unchanged, or omit it to start again from the newest", list, list, tool)
	}
	if c.Ticket != ticket {
		return nil, invalid("cursor was issued for ticket '%s', not '%s'; pass the id it came with, or omit cursor to start from the newest", clip(c.Ticket), clip(ticket))
	}
	if c.At == nil {
		return nil, nil
	}
	return &Position{At: *c.At, ID: c.ID}, nil
}

func notePosition(n Note) *Position   { return &Position{At: n.CreatedAt, ID: n.ID} }
func eventPosition(e Event) *Position { return &Position{At: e.At, ID: e.ID} }

// Tool names of the activity pages, for the hints in errors.
const (
	toolListNotes   = "list_ticket_notes"
	toolListHistory = "list_ticket_history"
)

// ListTicketNotes pages a ticket's notes back in time.
func (s *Service) ListTicketNotes(ctx context.Context, in TicketActivityInput) (NoteList, error) {
	q, err := s.activityQuery(ctx, in, activityNotes, toolListNotes)
	if err != nil {
		return NoteList{}, err
	}
	page, err := s.store.ListNotes(ctx, q.ActivityQuery)
	if err := s.activityFailure(err, in.ID); err != nil {
		return NoteList{}, err
	}
	out := NoteList{TicketID: in.ID, Notes: nonNil(page.Notes), seal: q.seal}
	if page.More && len(page.Notes) > 0 {
		out.NextCursor = encodeActivityCursor(q.seal, in.ID, activityNotes, notePosition(page.Notes[0]))
	}
	fitEstimated(&out)
	return out, nil
}

// ListTicketHistory pages a ticket's history back in time.
func (s *Service) ListTicketHistory(ctx context.Context, in TicketActivityInput) (HistoryList, error) {
	q, err := s.activityQuery(ctx, in, activityHistory, toolListHistory)
	if err != nil {
		return HistoryList{}, err
	}
	page, err := s.store.ListHistory(ctx, q.ActivityQuery)
	if err := s.activityFailure(err, in.ID); err != nil {
		return HistoryList{}, err
	}
	out := HistoryList{TicketID: in.ID, History: nonNilEvents(page.Events), seal: q.seal}
	if page.More && len(page.Events) > 0 {
		out.NextCursor = encodeActivityCursor(q.seal, in.ID, activityHistory, eventPosition(page.Events[0]))
	}
	fitEstimated(&out)
	return out, nil
}

// activityRead is a store query of a ticket's notes or history with the
// seal of the cursors its answer hands out.
type activityRead struct {
	ActivityQuery
	seal *cursorSeal
}

func (s *Service) activityQuery(ctx context.Context, in TicketActivityInput, list, tool string) (activityRead, error) {
	if err := in.Validate(); err != nil {
		return activityRead{}, err
	}
	seal, err := s.cursors(ctx)
	if err != nil {
		return activityRead{}, err
	}
	q := activityRead{ActivityQuery{TicketID: in.ID, Limit: in.Limit, Readable: readablePolicies(PrincipalFrom(ctx))}, seal}
	if in.Cursor != "" {
		before, err := decodeActivityCursor(seal, in.Cursor, in.ID, list, tool)
		if err != nil {
			return q, err
		}
		q.Before = before
	}
	return q, nil
}

// activityFailure maps a store error of a ticket read: absent and hidden
// tickets answer the same.
func (s *Service) activityFailure(err error, id string) error {
	var denied *PolicyError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrNotFound), errors.As(err, &denied):
		return ticketNotFound(id)
	}
	return s.storeFailure(err)
}
