package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"slices"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A ticket's notes are ordered by (created_at, id) (index notes_by_ticket)
// and its events by append order (seq), which is (at, id) order as the
// service writes them: each write stamps its event from the service's clock
// and writes to one ticket serialize on its version.

// ReadTicket reads the ticket and its policy first, and its newest notes
// and events only when the policy allows the caller: a ticket the caller may
// not see costs one indexed row, as an absent one does.
func (s *Store) ReadTicket(ctx context.Context, q board.TicketRead) (board.TicketActivity, error) {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true}) // one snapshot for all three
	if err != nil {
		return board.TicketActivity{}, err
	}
	defer tx.Rollback()
	var a board.TicketActivity
	a.Ticket, a.Policy, err = readableTicket(ctx, tx, q.ID, q.Readable)
	if err != nil {
		return board.TicketActivity{}, err
	}
	notes, err := s.notesBefore(ctx, tx, q.ID, nil, q.Notes)
	if err != nil {
		return board.TicketActivity{}, err
	}
	events, err := eventsBefore(ctx, tx, q.ID, nil, q.Events)
	if err != nil {
		return board.TicketActivity{}, err
	}
	a.Notes, a.MoreNotes = notes.Notes, notes.More
	a.History, a.MoreHistory = events.Events, events.More
	return a, nil
}

// ListNotes pages a ticket's notes, newest pages first.
func (s *Store) ListNotes(ctx context.Context, q board.ActivityQuery) (board.NotePage, error) {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return board.NotePage{}, err
	}
	defer tx.Rollback()
	if _, _, err := readableTicket(ctx, tx, q.TicketID, q.Readable); err != nil {
		return board.NotePage{}, err
	}
	return s.notesBefore(ctx, tx, q.TicketID, q.Before, q.Limit)
}

// ListHistory pages a ticket's history, newest pages first.
func (s *Store) ListHistory(ctx context.Context, q board.ActivityQuery) (board.EventPage, error) {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return board.EventPage{}, err
	}
	defer tx.Rollback()
	if _, _, err := readableTicket(ctx, tx, q.TicketID, q.Readable); err != nil {
		return board.EventPage{}, err
	}
	return eventsBefore(ctx, tx, q.TicketID, q.Before, q.Limit)
}

// readableTicket reads a ticket with its workspace's policy: ErrNotFound,
// or *PolicyError when the policy is not readable.
func readableTicket(ctx context.Context, q querier, id string, readable []board.AIPolicy) (board.Ticket, board.AIPolicy, error) {
	var policy board.AIPolicy
	t, err := scanTicket(q.QueryRowContext(ctx, `SELECT `+prefixed("t.", ticketColumns)+`, w.ai_policy
		FROM tickets t JOIN workspaces w ON w.slug = t.workspace WHERE t.id = ?`, id), &policy)
	if errors.Is(err, sql.ErrNoRows) {
		return t, "", board.ErrNotFound
	}
	if err != nil {
		return t, "", err
	}
	return t, policy, board.CheckPolicy(readable, policy)
}

// notesBefore reads up to limit notes before a position (nil: the newest),
// oldest first, and whether older ones exist.
func (s *Store) notesBefore(ctx context.Context, q querier, ticketID string, before *board.Position, limit int) (board.NotePage, error) {
	page := board.NotePage{Notes: []board.Note{}}
	if limit <= 0 {
		return page, nil
	}
	where, args := `ticket_id = ?`, []any{ticketID}
	if before != nil {
		where, args = where+` AND (created_at, id) < (?, ?)`, append(args, formatTime(before.At), before.ID)
	}
	rows, err := q.QueryContext(ctx, `SELECT id, ticket_id, body, author, on_behalf_of, source, created_at FROM notes
		WHERE `+where+` ORDER BY created_at DESC, id DESC LIMIT ?`, append(args, limit+1)...)
	if err != nil {
		return page, err
	}
	defer rows.Close()
	for rows.Next() {
		if len(page.Notes) == limit {
			page.More = true
			break
		}
		var n board.Note
		var created string
		if err := rows.Scan(&n.ID, &n.TicketID, &n.Body, &n.Author, &n.OnBehalfOf, &n.Source, &created); err != nil {
			return page, err
		}
		if n.CreatedAt, err = parseTime(created); err != nil {
			return page, err
		}
		page.Notes = append(page.Notes, n)
	}
	slices.Reverse(page.Notes)
	return page, rows.Err()
}

// eventsBefore reads up to limit events of a ticket before a position (nil:
// the newest), oldest first, and whether older ones exist.
func eventsBefore(ctx context.Context, q querier, ticketID string, before *board.Position, limit int) (board.EventPage, error) {
	page := board.EventPage{Events: []board.Event{}}
	if limit <= 0 {
		return page, nil
	}
	where, args := `ticket_id = ?`, []any{ticketID}
	if before != nil {
		// The position is resolved within this ticket only: an id of
		// another ticket's event places nothing here.
		where, args = where+` AND seq < (SELECT seq FROM events WHERE id = ? AND ticket_id = ?)`, append(args, before.ID, ticketID)
	}
	events, err := queryEvents(ctx, q, `SELECT data FROM events WHERE `+where+` ORDER BY seq DESC LIMIT ?`, append(args, limit+1)...)
	if err != nil {
		return page, err
	}
	if len(events) > limit {
		events, page.More = events[:limit], true
	}
	slices.Reverse(events)
	page.Events = events
	return page, nil
}
