package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

const ticketColumns = `id, workspace, number, title, body, status, priority, owner, due, tags, links,
	created_by, created_at, updated_at, completed_at, url, version, created_for,
	claim_by, claim_for, claim_since, claim_until, claim_token`

type scanner interface{ Scan(dest ...any) error }

// scanTicket reads ticketColumns, then any extra columns into extra.
func scanTicket(row scanner, extra ...any) (board.Ticket, error) {
	var t board.Ticket
	var owner, due, completed sql.NullString
	var tags, links, created, updated string
	var claim claimColumns
	dest := []any{&t.ID, &t.Workspace, &t.Number, &t.Title, &t.Body, &t.Status, &t.Priority, &owner, &due,
		&tags, &links, &t.CreatedBy, &created, &updated, &completed, &t.URL, &t.Version, &t.CreatedFor,
		&claim.by, &claim.forWhom, &claim.since, &claim.until, &claim.token}
	err := row.Scan(append(dest, extra...)...)
	if err != nil {
		return t, err
	}
	if t.Claim, err = claim.claim(); err != nil {
		return t, err
	}
	t.Owner, t.Due = stringPtr(owner), stringPtr(due)
	if err := scanJSONList(tags, &t.Tags); err != nil {
		return t, err
	}
	if err := scanJSONList(links, &t.Links); err != nil {
		return t, err
	}
	if t.CreatedAt, err = parseTime(created); err != nil {
		return t, err
	}
	if t.UpdatedAt, err = parseTime(updated); err != nil {
		return t, err
	}
	if completed.Valid {
		c, err := parseTime(completed.String)
		if err != nil {
			return t, err
		}
		t.CompletedAt = &c
	}
	return t, nil
}

func ticketArgs(t board.Ticket) ([]any, error) {
	tags, err := jsonList(t.Tags)
	if err != nil {
		return nil, err
	}
	links, err := jsonList(t.Links)
	if err != nil {
		return nil, err
	}
	// The order of ticketColumns.
	return append([]any{t.ID, t.Workspace, t.Number, t.Title, t.Body, string(t.Status), string(t.Priority),
		nullString(t.Owner), nullString(t.Due), tags, links, t.CreatedBy,
		formatTime(t.CreatedAt), formatTime(t.UpdatedAt), nullTime(t.CompletedAt), t.URL, t.Version, t.CreatedFor,
	}, claimArgs(t.Claim)...), nil
}

// scanJSONList decodes a list column (jsonList's JSON) into list. Most
// tickets have no tags or links, and every read of a ticket (a create's
// similar lookup reads ten) decodes both, so the empty list skips the
// JSON decoder; it decodes to an empty list, as the decoder would.
func scanJSONList[T any](column string, list *[]T) error {
	if column == "[]" {
		*list = []T{}
		return nil
	}
	return json.Unmarshal([]byte(column), list)
}

// jsonList is a list column's JSON; most tickets have no tags or links.
func jsonList[T any](list []T) (string, error) {
	if len(list) == 0 {
		return "[]", nil
	}
	b, err := json.Marshal(list)
	return string(b), err
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// prefixed qualifies a column list with a table alias.
func prefixed(alias, columns string) string {
	parts := strings.Split(columns, ",")
	for i, p := range parts {
		parts[i] = alias + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func queryEvents(ctx context.Context, q querier, query string, args ...any) ([]board.Event, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	events := []board.Event{}
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			return nil, err
		}
		var ev board.Event
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			return nil, err
		}
		events = append(events, ev)
	}
	return events, rows.Err()
}

func insertEvent(ctx context.Context, tx *sql.Tx, ev board.Event) error {
	data, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO events (id, workspace, ticket_id, data) VALUES (?, ?, ?, ?)`,
		ev.ID, ev.Workspace, sql.NullString{String: ev.TicketID, Valid: ev.TicketID != ""}, string(data))
	return err
}

// replaceEvents rewrites stored events in place (board.SaveTx.ScrubbedEvents):
// the row keeps its seq, so the history and the feed keep their order.
// An event that is not there (or is another ticket's) fails the write.
func replaceEvents(ctx context.Context, tx *sql.Tx, events []board.Event) error {
	for _, ev := range events {
		data, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE events SET data = ? WHERE id = ? AND ticket_id = ?`, string(data), ev.ID, ev.TicketID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n != 1 {
			return fmt.Errorf("sqlite: event %s of ticket %s is not stored; nothing was written", ev.ID, ev.TicketID)
		}
	}
	return nil
}

// ListEvents returns a workspace's latest events, newest first.
func (s *Store) ListEvents(ctx context.Context, workspace string, limit int) ([]board.Event, error) {
	return queryEvents(ctx, s.read, `SELECT data FROM events WHERE workspace = ? ORDER BY seq DESC LIMIT ?`, workspace, limit)
}

// LoadForWrite reads the request record, the ticket and its policy.
func (s *Store) LoadForWrite(ctx context.Context, key ledger.Key, ticketID string, now time.Time) (board.WriteContext, error) {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return board.WriteContext{}, err
	}
	defer tx.Rollback()
	var wc board.WriteContext
	rec, err := getRequest(ctx, tx, key, now)
	switch {
	case err == nil:
		wc.Existing = &rec
	case !errors.Is(err, board.ErrNotFound):
		return wc, err
	}
	var policy board.AIPolicy
	t, err := scanTicket(tx.QueryRowContext(ctx, `SELECT `+prefixed("t.", ticketColumns)+`, w.ai_policy
		FROM tickets t JOIN workspaces w ON w.slug = t.workspace WHERE t.id = ?`, ticketID), &policy)
	switch {
	case err == nil:
		wc.Ticket, wc.Policy = &t, policy
	case !errors.Is(err, sql.ErrNoRows):
		return wc, err
	}
	return wc, nil
}

// CreateTicket assigns the next number and commits the ticket, its event and
// the request record in one transaction.
func (s *Store) CreateTicket(ctx context.Context, tx board.CreateTx) (ledger.Record, error) {
	// The request record is looked up only inside the write (claimKey): a
	// look on a read connection first would spare a retry its place in the
	// write queue, but cost every new create a read transaction of its own
	// (about a tenth of its CPU), and retries are the rare case. For the
	// same reason the answer's own reads (the similar tickets) run before
	// the write, on a read connection beside other writes, even for a
	// retry, whose answer is the record's all the same.
	if tx.LookUp != nil {
		tx.LookUp(ctx)
	}
	var stored ledger.Record
	err := s.inTx(ctx, func(ctx context.Context, dbtx *sql.Tx) error {
		if err := claimKey(ctx, dbtx, tx.Request.Key, tx.Request.CreatedAt); err != nil {
			return err
		}
		// Take the next number and read the policy in one statement; a
		// refusal below rolls the job back to its savepoint, the number
		// with it.
		var policy board.AIPolicy
		var number int64
		err := dbtx.QueryRowContext(ctx, `UPDATE workspaces SET last_number = last_number + 1 WHERE slug = ?
			RETURNING ai_policy, last_number`, tx.Workspace).Scan(&policy, &number)
		if errors.Is(err, sql.ErrNoRows) {
			return board.ErrNotFound
		}
		if err != nil {
			return err
		}
		if err := board.CheckPolicy(tx.AllowedPolicies, policy); err != nil {
			return err
		}
		if number > board.MaxTicketNumber {
			// The search index keys numbers below 2^40 (ftsShift); the
			// number is rolled back with the write.
			return board.Errorf(board.CodeConflict, "workspace %s has given out every ticket number it can (up to %d); create the ticket in another workspace", tx.Workspace, int64(board.MaxTicketNumber))
		}
		plan, err := tx.Build(number)
		if err != nil {
			return err
		}
		args, err := ticketArgs(plan.Ticket)
		if err != nil {
			return err
		}
		if _, err := dbtx.ExecContext(ctx, `INSERT INTO tickets (`+ticketColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, args...); err != nil {
			return err
		}
		if err := insertEvent(ctx, dbtx, plan.Event); err != nil {
			return err
		}
		if err := insertInbox(ctx, dbtx, plan.Inbox); err != nil {
			return err
		}
		stored = tx.Request
		stored.Result = plan.Result
		return putRequest(ctx, dbtx, stored)
	})
	return stored, err
}

// SaveTicket commits a change computed from tx.Before, if the ticket is
// still at that version.
func (s *Store) SaveTicket(ctx context.Context, tx board.SaveTx) (ledger.Record, error) {
	err := s.inTx(ctx, func(ctx context.Context, dbtx *sql.Tx) error {
		if err := claimKey(ctx, dbtx, tx.Request.Key, tx.Request.CreatedAt); err != nil {
			return err
		}
		var version int64
		var policy board.AIPolicy
		err := dbtx.QueryRowContext(ctx, `SELECT t.version, w.ai_policy FROM tickets t JOIN workspaces w ON w.slug = t.workspace
			WHERE t.id = ?`, tx.Before.ID).Scan(&version, &policy)
		if errors.Is(err, sql.ErrNoRows) {
			return board.ErrNotFound
		}
		if err != nil {
			return err
		}
		if err := board.CheckPolicy(tx.AllowedPolicies, policy); err != nil {
			return err
		}
		if version != tx.Before.Version {
			return board.ErrVersionConflict
		}
		if tx.After != nil {
			t := *tx.After
			args := []any{t.Title, t.Body, string(t.Status), string(t.Priority),
				nullString(t.Owner), nullString(t.Due), mustJSON(nonNil(t.Tags)), mustJSON(nonNil(t.Links)),
				formatTime(t.UpdatedAt), nullTime(t.CompletedAt), t.Version}
			args = append(append(args, claimArgs(t.Claim)...), t.ID)
			if _, err := dbtx.ExecContext(ctx, `UPDATE tickets SET title = ?, body = ?, status = ?,
				priority = ?, owner = ?, due = ?, tags = ?, links = ?, updated_at = ?, completed_at = ?, version = ?,
				claim_by = ?, claim_for = ?, claim_since = ?, claim_until = ?, claim_token = ?
				WHERE id = ?`, args...); err != nil {
				return err
			}
		}
		if n := tx.Note; n != nil {
			if err := insertNote(ctx, dbtx, *n); err != nil {
				return err
			}
		}
		if n := tx.EditedNote; n != nil {
			if err := updateNote(ctx, dbtx, *n); err != nil {
				return err
			}
		}
		if err := replaceEvents(ctx, dbtx, tx.ScrubbedEvents); err != nil {
			return err
		}
		if err := rewriteRequests(ctx, dbtx, tx.ScrubbedRequests); err != nil {
			return err
		}
		if tx.Event != nil {
			if err := insertEvent(ctx, dbtx, *tx.Event); err != nil {
				return err
			}
		}
		if err := insertInbox(ctx, dbtx, tx.Inbox); err != nil {
			return err
		}
		return putRequest(ctx, dbtx, tx.Request)
	})
	if err != nil {
		return ledger.Record{}, err
	}
	return tx.Request, nil
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only slices of strings and Links reach here
	}
	return string(b)
}
