package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// exportPage is how many rows one read of an export holds: reads page by
// keyset, each its own short query, so an export never keeps a read
// transaction open against the server's writes for the whole board. A
// variable so that a test can make every export cross pages.
var exportPage = 500

// inPages streams a keyset-paged read: query reads the page after last (nil
// for the first page), scan reads one row. A page's rows are closed before
// fn sees its items, so fn may write to the store.
func inPages[T any](query func(last *T) (*sql.Rows, error), scan func(scanner) (T, error), fn func(T) error) error {
	var last *T
	for {
		rows, err := query(last)
		if err != nil {
			return err
		}
		var page []T
		for rows.Next() {
			v, err := scan(rows)
			if err != nil {
				rows.Close()
				return err
			}
			page = append(page, v)
		}
		if err := closeRows(rows); err != nil {
			return err
		}
		for _, v := range page {
			if err := fn(v); err != nil {
				return err
			}
		}
		if len(page) < exportPage {
			return nil
		}
		last = &page[len(page)-1]
	}
}

// TransferWorkspaces streams every workspace with its counter, by slug.
func (s *Store) TransferWorkspaces(ctx context.Context, fn func(board.TransferredWorkspace) error) error {
	return inPages(func(last *board.TransferredWorkspace) (*sql.Rows, error) {
		after := ""
		if last != nil {
			after = last.Slug
		}
		return s.read.QueryContext(ctx, `SELECT slug, name, ai_policy, last_number FROM workspaces
			WHERE slug > ? ORDER BY slug LIMIT ?`, after, exportPage)
	}, func(rows scanner) (board.TransferredWorkspace, error) {
		var w board.TransferredWorkspace
		var last int64
		err := rows.Scan(&w.Slug, &w.Name, &w.AIPolicy, &last)
		w.Next = last + 1
		return w, err
	}, fn)
}

// TransferTickets streams a workspace's tickets, lowest number first.
func (s *Store) TransferTickets(ctx context.Context, workspace string, fn func(board.Ticket) error) error {
	return inPages(func(last *board.Ticket) (*sql.Rows, error) {
		var after int64
		if last != nil {
			after = last.Number
		}
		return s.read.QueryContext(ctx, `SELECT `+ticketColumns+` FROM tickets
			WHERE workspace = ? AND number > ? ORDER BY number LIMIT ?`, workspace, after, exportPage)
	}, func(row scanner) (board.Ticket, error) { return scanTicket(row) }, fn)
}

// TransferNotes streams the notes of a workspace's tickets, in the order
// they were added.
func (s *Store) TransferNotes(ctx context.Context, workspace string, fn func(board.Note) error) error {
	var after int64 // the rowid of the page's last note
	return inPages(func(*board.Note) (*sql.Rows, error) {
		return s.read.QueryContext(ctx, `SELECT n.rowid, n.id, n.ticket_id, n.body, n.author, n.on_behalf_of, n.source, n.created_at
			FROM notes n JOIN tickets t ON t.id = n.ticket_id
			WHERE t.workspace = ? AND n.rowid > ? ORDER BY n.rowid LIMIT ?`, workspace, after, exportPage)
	}, func(rows scanner) (board.Note, error) {
		var n board.Note
		var created string
		if err := rows.Scan(&after, &n.ID, &n.TicketID, &n.Body, &n.Author, &n.OnBehalfOf, &n.Source, &created); err != nil {
			return n, err
		}
		var err error
		n.CreatedAt, err = parseTime(created)
		return n, err
	}, fn)
}

// TransferEvents streams a workspace's history in append order, the order
// the activity feed lists it in.
func (s *Store) TransferEvents(ctx context.Context, workspace string, fn func(board.Event) error) error {
	var after int64 // the seq of the page's last event
	return inPages(func(*board.Event) (*sql.Rows, error) {
		return s.read.QueryContext(ctx, `SELECT seq, data FROM events WHERE workspace = ? AND seq > ? ORDER BY seq LIMIT ?`,
			workspace, after, exportPage)
	}, func(rows scanner) (board.Event, error) {
		var ev board.Event
		var data string
		if err := rows.Scan(&after, &data); err != nil {
			return ev, err
		}
		return ev, json.Unmarshal([]byte(data), &ev)
	}, fn)
}

// TransferRequests streams the completed records unexpired at now.
func (s *Store) TransferRequests(ctx context.Context, now time.Time, fn func(ledger.Record) error) error {
	return inPages(func(last *ledger.Record) (*sql.Rows, error) {
		var afterPrincipal, afterID string
		if last != nil {
			afterPrincipal, afterID = last.Key.Principal, last.Key.RequestID
		}
		return s.read.QueryContext(ctx, `SELECT `+requestColumns+` FROM requests
			WHERE (principal, request_id) > (?, ?) AND status = ? AND expires_at > ?
			ORDER BY principal, request_id LIMIT ?`, afterPrincipal, afterID, string(ledger.StatusDone), formatTime(now), exportPage)
	}, scanRequest, fn)
}

func closeRows(rows *sql.Rows) error {
	err := rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return err
}

// BoardEmpty reports whether the file holds no ticket and no request
// record.
func (s *Store) BoardEmpty(ctx context.Context) (bool, error) {
	var held bool
	err := s.read.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM tickets) OR EXISTS (SELECT 1 FROM requests)`).Scan(&held)
	return !held, err
}

// PutWorkspace inserts a workspace with its counter, if absent.
func (s *Store) PutWorkspace(ctx context.Context, w board.TransferredWorkspace) (board.PutOutcome, error) {
	// The search index's keys hold numbers below 2^40 (ftsShift).
	if err := board.ValidateNextNumber(w.Next); err != nil {
		return 0, err
	}
	var out board.PutOutcome
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var have board.TransferredWorkspace
		var last int64
		err := tx.QueryRowContext(ctx, `SELECT slug, name, ai_policy, last_number FROM workspaces WHERE slug = ?`, w.Slug).
			Scan(&have.Slug, &have.Name, &have.AIPolicy, &last)
		switch {
		case err == nil && last == 0 && (!board.SameWorkspace(have, w) || w.Next > 1):
			// Never held a ticket: a fresh store's seeded workspace.
			out = board.Added
			_, err = tx.ExecContext(ctx, `UPDATE workspaces SET name = ?, ai_policy = ?, last_number = ? WHERE slug = ?`,
				w.Name, string(w.AIPolicy), w.Next-1, w.Slug)
			return err
		case err == nil:
			out = outcome(board.SameWorkspace(have, w))
			if out == board.AlreadyThere && last+1 < w.Next {
				// A resumed import: the counter is raised as a first run
				// would have left it.
				_, err = tx.ExecContext(ctx, `UPDATE workspaces SET last_number = ? WHERE slug = ?`, w.Next-1, w.Slug)
			}
			return err
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		out = board.Added
		_, err = tx.ExecContext(ctx, `INSERT INTO workspaces (slug, name, ai_policy, last_number) VALUES (?, ?, ?, ?)`,
			w.Slug, w.Name, string(w.AIPolicy), w.Next-1)
		return err
	})
	return out, err
}

// PutTicket inserts a ticket, if absent; the tickets' triggers count it
// and index its tags and text as they do for a create, and the
// workspace's counter is raised to at least its number.
func (s *Store) PutTicket(ctx context.Context, t board.Ticket) (board.PutOutcome, error) {
	var out board.PutOutcome
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		out, err = putTicket(ctx, tx, t)
		return err
	})
	return out, err
}

func putTicket(ctx context.Context, tx *sql.Tx, t board.Ticket) (out board.PutOutcome, err error) {
	// A number of 2^40 or more would index the ticket in another
	// workspace's range of the search index (ftsShift).
	if err := board.ValidateTicketNumber(t.Number); err != nil {
		return out, err
	}
	var last int64
	err = tx.QueryRowContext(ctx, `SELECT last_number FROM workspaces WHERE slug = ?`, t.Workspace).Scan(&last)
	if errors.Is(err, sql.ErrNoRows) {
		return out, board.ErrNotFound
	}
	if err != nil {
		return out, err
	}
	have, err := scanTicket(tx.QueryRowContext(ctx, `SELECT `+ticketColumns+` FROM tickets WHERE id = ?`, t.ID))
	switch {
	case err == nil:
		out = outcome(board.SameTicket(have, t))
		return out, nil
	case !errors.Is(err, sql.ErrNoRows):
		return out, err
	}
	out = board.Added
	args, err := ticketArgs(t)
	if err != nil {
		return out, err
	}
	if err := insertTickets(ctx, tx, [][]any{args}); err != nil {
		return out, err
	}
	if t.Number > last {
		_, err = tx.ExecContext(ctx, `UPDATE workspaces SET last_number = ? WHERE slug = ?`, t.Number, t.Workspace)
	}
	return out, err
}

// PutNote inserts a note of a stored ticket, if absent.
func (s *Store) PutNote(ctx context.Context, n board.Note) (board.PutOutcome, error) {
	var out board.PutOutcome
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		out, err = putNote(ctx, tx, n)
		return err
	})
	return out, err
}

func putNote(ctx context.Context, tx *sql.Tx, n board.Note) (out board.PutOutcome, err error) {
	var have board.Note
	var created string
	err = tx.QueryRowContext(ctx, `SELECT id, ticket_id, body, author, on_behalf_of, source, created_at FROM notes WHERE id = ?`, n.ID).
		Scan(&have.ID, &have.TicketID, &have.Body, &have.Author, &have.OnBehalfOf, &have.Source, &created)
	switch {
	case err == nil:
		if have.CreatedAt, err = parseTime(created); err != nil {
			return out, err
		}
		out = outcome(board.SameNote(have, n))
		return out, nil
	case !errors.Is(err, sql.ErrNoRows):
		return out, err
	}
	var exists bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM tickets WHERE id = ?)`, n.TicketID).Scan(&exists); err != nil {
		return out, err
	}
	if !exists {
		return out, board.ErrNotFound
	}
	out = board.Added
	_, err = tx.ExecContext(ctx, `INSERT INTO notes (id, ticket_id, body, author, on_behalf_of, source, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		n.ID, n.TicketID, n.Body, n.Author, n.OnBehalfOf, string(n.Source), formatTime(n.CreatedAt))
	return out, err
}

// PutEvent appends an event to its workspace's history, if absent.
func (s *Store) PutEvent(ctx context.Context, e board.Event) (board.PutOutcome, error) {
	var out board.PutOutcome
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		out, err = putEvent(ctx, tx, e)
		return err
	})
	return out, err
}

func putEvent(ctx context.Context, tx *sql.Tx, e board.Event) (out board.PutOutcome, err error) {
	var data string
	err = tx.QueryRowContext(ctx, `SELECT data FROM events WHERE id = ?`, e.ID).Scan(&data)
	switch {
	case err == nil:
		var have board.Event
		if err := json.Unmarshal([]byte(data), &have); err != nil {
			return out, err
		}
		out = outcome(board.SameEvent(have, e))
		return out, nil
	case !errors.Is(err, sql.ErrNoRows):
		return out, err
	}
	var exists bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM workspaces WHERE slug = ?)`, e.Workspace).Scan(&exists); err != nil {
		return out, err
	}
	if !exists {
		return out, board.ErrNotFound
	}
	out = board.Added
	return out, insertEvent(ctx, tx, e)
}

// PutRequest stores a completed record unless one unexpired at now holds
// its key; an expired one is replaced.
func (s *Store) PutRequest(ctx context.Context, r ledger.Record, now time.Time) (board.PutOutcome, error) {
	var out board.PutOutcome
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		out, err = putRecord(ctx, tx, r, now)
		return err
	})
	return out, err
}

func putRecord(ctx context.Context, tx *sql.Tx, r ledger.Record, now time.Time) (out board.PutOutcome, err error) {
	err = claimKey(ctx, tx, r.Key, now)
	var held *ledger.ExistsError
	if errors.As(err, &held) {
		out = outcome(board.SameRecord(held.Record, r))
		return out, nil
	}
	if err != nil {
		return out, err
	}
	out = board.Added
	return out, putRequest(ctx, tx, r)
}

func outcome(same bool) board.PutOutcome {
	if same {
		return board.AlreadyThere
	}
	return board.Collision
}
