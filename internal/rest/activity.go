package rest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A ticket's answer is bounded the way get_ticket's is (docs/decisions.md,
// "REST"): the ticket with its newest notes and history events (up to 20
// of each, oldest first) and a cursor to each list's older entries, which
// GET /tickets/{id}/notes and /history page back through.
//
// Until the store reads activity a page at a time (the bounded reads of the
// scale work), these pages are cut here from the whole detail the service
// returns: the answer is bounded, the read is not yet. The cursors are the
// ones the service will issue (ticket, list, and the position before which
// to continue), so a client written against these routes keeps working
// when the pages come from the store.

const (
	detailNotes  = 20
	detailEvents = 20
)

// TicketDetail is a ticket with its newest notes and history events.
type TicketDetail struct {
	Ticket        board.Ticket  `json:"ticket"`
	Notes         []board.Note  `json:"notes" jsonschema:"the newest notes (up to 20), oldest first"`
	NotesCursor   *string       `json:"notes_cursor" jsonschema:"older notes exist: pass this to GET /tickets/{id}/notes to read them; null when every note is in notes"`
	History       []board.Event `json:"history" jsonschema:"the newest history events (up to 20), oldest first"`
	HistoryCursor *string       `json:"history_cursor" jsonschema:"older events exist: pass this to GET /tickets/{id}/history to read them; null when the whole history is here"`
}

// ActivityInput pages a ticket's notes or history.
type ActivityInput struct {
	ID     string `json:"id" jsonschema:"ticket id, e.g. inbox-21"`
	Cursor string `json:"cursor,omitempty" jsonschema:"notes_cursor or history_cursor from the ticket, or next_cursor of the previous page; omit to start from the newest"`
	Limit  int    `json:"limit,omitempty" jsonschema:"page size 1-100, default 20"`
}

// NoteList is one page of a ticket's notes.
type NoteList struct {
	TicketID   string       `json:"ticket_id"`
	Notes      []board.Note `json:"notes" jsonschema:"notes before the cursor's position, oldest first"`
	NextCursor *string      `json:"next_cursor" jsonschema:"older notes exist: pass this back to read them; null when this page reaches the first note"`
}

// HistoryList is one page of a ticket's history.
type HistoryList struct {
	TicketID   string        `json:"ticket_id"`
	History    []board.Event `json:"history" jsonschema:"events before the cursor's position, oldest first"`
	NextCursor *string       `json:"next_cursor" jsonschema:"older events exist: pass this back to read them; null when this page reaches the first event"`
}

// position orders activity: time, then id.
type position struct {
	At time.Time
	ID string
}

func (p position) before(q position) bool {
	return p.At.Before(q.At) || (p.At.Equal(q.At) && p.ID < q.ID)
}

type activityCursor struct {
	Ticket string     `json:"t"`
	List   string     `json:"l"`
	At     *time.Time `json:"a,omitempty"`
	ID     string     `json:"i,omitempty"`
}

func encodeActivityCursor(ticket, list string, before position) *string {
	at := before.At.UTC()
	raw, _ := json.Marshal(activityCursor{Ticket: ticket, List: list, At: &at, ID: before.ID})
	s := base64.RawURLEncoding.EncodeToString(raw)
	return &s
}

func decodeActivityCursor(s, ticket, list string) (*position, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	var c activityCursor
	if err == nil {
		err = json.Unmarshal(raw, &c)
	}
	if err != nil || c.List != list || (c.At == nil) != (c.ID == "") {
		return nil, board.Errorf(board.CodeInvalid, "cursor is not a %s cursor this server issued; pass %s_cursor from the ticket or next_cursor from the previous page unchanged, or omit it to start from the newest", list, list)
	}
	if c.Ticket != ticket {
		return nil, board.Errorf(board.CodeInvalid, "cursor was issued for ticket '%s', not '%s'; pass the id it came with, or omit cursor to start from the newest", c.Ticket, ticket)
	}
	if c.At == nil {
		return nil, nil
	}
	return &position{At: *c.At, ID: c.ID}, nil
}

// page is the newest limit entries before the position (all when nil),
// oldest first, and whether older ones remain.
func page[T any](all []T, pos func(T) position, before *position, limit int) ([]T, bool) {
	end := len(all)
	if before != nil {
		end = 0
		for end < len(all) && pos(all[end]).before(*before) {
			end++
		}
	}
	start := max(0, end-limit)
	return append([]T{}, all[start:end]...), start > 0
}

func notePos(n board.Note) position   { return position{n.CreatedAt, n.ID} }
func eventPos(e board.Event) position { return position{e.At, e.ID} }

// getTicket is GET /tickets/{id}.
func getTicket(s *board.Service) func(context.Context, board.TicketIDInput) (TicketDetail, error) {
	return func(ctx context.Context, in board.TicketIDInput) (TicketDetail, error) {
		d, err := s.GetTicket(ctx, in)
		if err != nil {
			return TicketDetail{}, err
		}
		out := TicketDetail{Ticket: d.Ticket}
		var more bool
		if out.Notes, more = page(d.Notes, notePos, nil, detailNotes); more {
			out.NotesCursor = encodeActivityCursor(in.ID, "notes", notePos(out.Notes[0]))
		}
		if out.History, more = page(d.History, eventPos, nil, detailEvents); more {
			out.HistoryCursor = encodeActivityCursor(in.ID, "history", eventPos(out.History[0]))
		}
		return out, nil
	}
}

func (in *ActivityInput) validate() error {
	if _, _, err := board.ParseTicketID(in.ID); err != nil {
		return err
	}
	if in.Limit == 0 {
		in.Limit = board.DefaultLimit
	}
	if in.Limit < 1 || in.Limit > board.MaxLimit {
		return board.Errorf(board.CodeInvalid, "limit %d is out of range 1-%d", in.Limit, board.MaxLimit)
	}
	return nil
}

// listNotes is GET /tickets/{id}/notes.
func listNotes(s *board.Service) func(context.Context, ActivityInput) (NoteList, error) {
	return func(ctx context.Context, in ActivityInput) (NoteList, error) {
		d, before, err := activity(ctx, s, &in, "notes")
		if err != nil {
			return NoteList{}, err
		}
		out := NoteList{TicketID: in.ID}
		var more bool
		if out.Notes, more = page(d.Notes, notePos, before, in.Limit); more && len(out.Notes) > 0 {
			out.NextCursor = encodeActivityCursor(in.ID, "notes", notePos(out.Notes[0]))
		}
		return out, nil
	}
}

// listHistory is GET /tickets/{id}/history.
func listHistory(s *board.Service) func(context.Context, ActivityInput) (HistoryList, error) {
	return func(ctx context.Context, in ActivityInput) (HistoryList, error) {
		d, before, err := activity(ctx, s, &in, "history")
		if err != nil {
			return HistoryList{}, err
		}
		out := HistoryList{TicketID: in.ID}
		var more bool
		if out.History, more = page(d.History, eventPos, before, in.Limit); more && len(out.History) > 0 {
			out.NextCursor = encodeActivityCursor(in.ID, "history", eventPos(out.History[0]))
		}
		return out, nil
	}
}

func activity(ctx context.Context, s *board.Service, in *ActivityInput, list string) (board.TicketDetail, *position, error) {
	if err := in.validate(); err != nil {
		return board.TicketDetail{}, nil, err
	}
	var before *position
	if in.Cursor != "" {
		var err error
		if before, err = decodeActivityCursor(in.Cursor, in.ID, list); err != nil {
			return board.TicketDetail{}, nil, err
		}
	}
	d, err := s.GetTicket(ctx, board.TicketIDInput{ID: in.ID})
	return d, before, err
}
