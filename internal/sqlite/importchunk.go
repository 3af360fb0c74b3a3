package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// ImportChunk imports every row of tx.Rows in one transaction (SQLite has
// no item limit): the rows' tickets, events and records, the workspace's
// counter and the task's cursor and progress commit together or not at
// all. The statements are prepared once per chunk.
func (s *Store) ImportChunk(ctx context.Context, tx board.ChunkTx) (board.Task, error) {
	var after board.Task
	err := s.inTx(ctx, func(ctx context.Context, dbtx *sql.Tx) error {
		current, err := getTaskAnyTime(ctx, dbtx, tx.Task.ID)
		if err != nil {
			return err
		}
		if current.Status != board.TaskWorking || current.Cursor != tx.Task.Cursor {
			return &board.TaskChangedError{Task: current}
		}
		var policy board.AIPolicy
		var last int64
		err = dbtx.QueryRowContext(ctx, `SELECT ai_policy, last_number FROM workspaces WHERE slug = ?`, tx.Task.Workspace).Scan(&policy, &last)
		if errors.Is(err, sql.ErrNoRows) {
			return board.ErrNotFound
		}
		if err != nil {
			return err
		}
		if err := board.CheckPolicy(tx.AllowedPolicies, policy); err != nil {
			return err
		}
		st, err := prepareImport(ctx, dbtx)
		if err != nil {
			return err
		}
		defer st.close()
		// The tickets go in with one statement after the loop: each INSERT
		// that fires the tickets' triggers opens a statement journal, and
		// at each one the text search index (FTS5) flushes what it holds to
		// a new segment and merges; one statement per chunk makes that one
		// flush instead of one per row (docs/benchmarks.md).
		var tickets [][]any
		imported := 0
		for _, row := range tx.Rows {
			var live int
			err := st.live.QueryRowContext(ctx, row.Record.Key.Principal, row.Record.Key.RequestID, formatTime(row.Record.CreatedAt)).Scan(&live)
			if err == nil {
				continue // imported before, by another run of this request
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			if last >= board.MaxTicketNumber {
				// The search index keys numbers below 2^40 (ftsShift).
				return board.Errorf(board.CodeConflict, "workspace %s has given out every ticket number it can (up to %d); import into another workspace", tx.Task.Workspace, int64(board.MaxTicketNumber))
			}
			plan, err := tx.Build(row, last+1)
			if err != nil {
				return err
			}
			last++
			args, err := ticketArgs(plan.Ticket)
			if err != nil {
				return err
			}
			tickets = append(tickets, args)
			ev, err := json.Marshal(plan.Event)
			if err != nil {
				return err
			}
			if _, err := st.event.ExecContext(ctx, plan.Event.ID, plan.Event.Workspace, plan.Event.TicketID, string(ev)); err != nil {
				return err
			}
			r := row.Record
			r.Result = plan.Result
			if _, err := st.record.ExecContext(ctx, r.Key.Principal, r.Key.RequestID, r.Tool, r.Fingerprint, string(r.Args), string(r.Status),
				string(r.Result), formatTime(r.CreatedAt), formatTime(r.ExpiresAt)); err != nil {
				return err
			}
			imported++
		}
		if err := insertTickets(ctx, dbtx, tickets); err != nil {
			return err
		}
		if _, err := dbtx.ExecContext(ctx, `UPDATE workspaces SET last_number = ? WHERE slug = ?`, last, tx.Task.Workspace); err != nil {
			return err
		}
		after = tx.After(len(tx.Rows), imported)
		return writeTask(ctx, dbtx, after)
	})
	return after, err
}

// importStatements are the per-row statements of a chunk.
type importStatements struct {
	live, event, record *sql.Stmt
}

func prepareImport(ctx context.Context, tx *sql.Tx) (*importStatements, error) {
	st := &importStatements{}
	var err error
	prep := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var s *sql.Stmt
		s, err = tx.PrepareContext(ctx, q)
		return s
	}
	st.live = prep(`SELECT 1 FROM requests WHERE principal = ? AND request_id = ? AND expires_at > ?`)
	st.event = prep(`INSERT INTO events (id, workspace, ticket_id, data) VALUES (?, ?, ?, ?)`)
	// REPLACE: a record under the key has expired (a live one was skipped).
	st.record = prep(`INSERT OR REPLACE INTO requests (principal, request_id, tool, fingerprint, args, status, result, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		st.close()
		return nil, err
	}
	return st, nil
}

func (st *importStatements) close() {
	for _, s := range []*sql.Stmt{st.live, st.event, st.record} {
		if s != nil {
			s.Close()
		}
	}
}

// insertTickets inserts rows of ticketArgs as CreateTicket does (the
// tickets' triggers keep the counts, the tag index and the text search
// index), in as few statements as SQLite's limit on bound values allows.
func insertTickets(ctx context.Context, tx *sql.Tx, rows [][]any) error {
	const maxValues = 32766 // SQLITE_MAX_VARIABLE_NUMBER's default
	for len(rows) > 0 {
		n := min(len(rows), maxValues/len(rows[0]))
		placeholders := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(rows[0])), ", ") + ")"
		args := make([]any, 0, n*len(rows[0]))
		for _, r := range rows[:n] {
			args = append(args, r...)
		}
		q := `INSERT INTO tickets (` + ticketColumns + `) VALUES ` + strings.TrimSuffix(strings.Repeat(placeholders+", ", n), ", ")
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}
