package board

import (
	"context"
	"encoding/base64"
	"encoding/json"
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

// Which list an activity cursor continues.
const (
	activityNotes   = "notes"
	activityHistory = "history"
)

// activityCursor is opaque to callers: the ticket, the list, and the
// position to continue before (none: from the newest, when an answer was cut
// to size before it could show any).
type activityCursor struct {
	Ticket string     `json:"t"`
	List   string     `json:"l"`
	At     *time.Time `json:"a,omitempty"`
	ID     string     `json:"i,omitempty"`
}

func encodeActivityCursor(ticket, list string, before *Position) *string {
	c := activityCursor{Ticket: ticket, List: list}
	if before != nil {
		at := before.At.UTC()
		c.At, c.ID = &at, before.ID
	}
	raw, _ := json.Marshal(c)
	s := base64.RawURLEncoding.EncodeToString(raw)
	return &s
}

func decodeActivityCursor(s, ticket, list, tool string) (*Position, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	var c activityCursor
	if err == nil {
		err = json.Unmarshal(raw, &c)
	}
	if err != nil || c.List != list || (c.At == nil) != (c.ID == "") {
		return nil, invalid("cursor is not a %s cursor this server issued; pass %s_cursor from get_ticket or next_cursor from %s unchanged, or omit it to start from the newest", list, list, tool)
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
	page, err := s.store.ListNotes(ctx, q)
	if err := s.activityFailure(err, in.ID); err != nil {
		return NoteList{}, err
	}
	out := NoteList{TicketID: in.ID, Notes: nonNil(page.Notes)}
	if page.More && len(page.Notes) > 0 {
		out.NextCursor = encodeActivityCursor(in.ID, activityNotes, notePosition(page.Notes[0]))
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
	page, err := s.store.ListHistory(ctx, q)
	if err := s.activityFailure(err, in.ID); err != nil {
		return HistoryList{}, err
	}
	out := HistoryList{TicketID: in.ID, History: nonNilEvents(page.Events)}
	if page.More && len(page.Events) > 0 {
		out.NextCursor = encodeActivityCursor(in.ID, activityHistory, eventPosition(page.Events[0]))
	}
	fitEstimated(&out)
	return out, nil
}

func (s *Service) activityQuery(ctx context.Context, in TicketActivityInput, list, tool string) (ActivityQuery, error) {
	if err := in.Validate(); err != nil {
		return ActivityQuery{}, err
	}
	q := ActivityQuery{TicketID: in.ID, Limit: in.Limit, Readable: readablePolicies(PrincipalFrom(ctx))}
	if in.Cursor != "" {
		before, err := decodeActivityCursor(in.Cursor, in.ID, list, tool)
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
