package sqlite

import (
	"context"
	"database/sql"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// ReadSummary reads the workspace row (its counts are kept there), then,
// only if the caller may read it, three short indexed reads: the newest
// waiting_ai tickets (tickets_by_status), the open tickets due soonest
// (the partial index tickets_open_due) and the newest events.
func (s *Store) ReadSummary(ctx context.Context, q board.SummaryQuery) (board.SummaryRead, error) {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return board.SummaryRead{}, err
	}
	defer tx.Rollback()
	var r board.SummaryRead
	if r.Workspace, err = getWorkspace(ctx, tx, q.Workspace); err != nil {
		return board.SummaryRead{}, err
	}
	if err := board.CheckPolicy(q.Readable, r.Workspace.AIPolicy); err != nil {
		return board.SummaryRead{}, err
	}
	cols := prefixed("t.", ticketColumns)
	if r.WaitingAI, err = queryTickets(ctx, tx, q.MaxBytes, `SELECT `+cols+` FROM tickets t
		WHERE t.workspace = ? AND t.status = ? ORDER BY t.number DESC LIMIT ?`, q.Workspace, string(board.StatusWaitingAI), q.Waiting); err != nil {
		return board.SummaryRead{}, err
	}
	// The terms of tickets_open_due's WHERE appear as they are, so the
	// planner can use that partial index.
	if r.DueSoon, err = queryTickets(ctx, tx, q.MaxBytes, `SELECT `+cols+` FROM tickets t
		WHERE t.workspace = ? AND t.due IS NOT NULL AND t.status <> 'done' AND t.due <= ?
		ORDER BY t.due, t.number LIMIT ?`, q.Workspace, q.DueBy, q.Due); err != nil {
		return board.SummaryRead{}, err
	}
	if r.Events, err = queryEvents(ctx, tx, `SELECT data FROM events WHERE workspace = ? ORDER BY seq DESC LIMIT ?`,
		q.Workspace, q.Events); err != nil {
		return board.SummaryRead{}, err
	}
	return r, nil
}

// queryTickets reads tickets, stopping once they hold maxBytes of text
// (0: no bound); the first is always kept.
func queryTickets(ctx context.Context, q querier, maxBytes int, query string, args ...any) ([]board.Ticket, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []board.Ticket{}
	budget := board.TextBudget{Max: maxBytes}
	for rows.Next() {
		t, err := scanTicket(rows)
		if err != nil {
			return nil, err
		}
		if !budget.Take(t) {
			break
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
