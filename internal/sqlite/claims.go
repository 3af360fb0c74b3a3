package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A ticket's claim lives in five columns of its row, all NULL when nobody
// holds it. An expired claim stays as written: every read compares
// claim_until with the caller's now, so a lease runs out with no write.

// claimRank orders open tickets as claim_next hands them out: urgent
// first. The claimable index and ClaimCandidates use the same expression,
// so SQLite reads the index in order.
const claimRank = `(CASE priority WHEN 'urgent' THEN 0 WHEN 'high' THEN 1 WHEN 'low' THEN 3 ELSE 2 END)`

// migrateClaims (6 → 7) adds the claim columns and the index claim_next
// reads: a workspace's open tickets per status, by priority then number.
// It adds only what is missing, so a file whose version was set back runs
// it again unharmed.
func migrateClaims(ctx context.Context, tx *sql.Tx) error {
	for _, c := range []string{"claim_by", "claim_for", "claim_since", "claim_until", "claim_token"} {
		var have int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('tickets') WHERE name = ?`, c).Scan(&have); err != nil {
			return err
		}
		if have == 0 {
			if _, err := tx.ExecContext(ctx, `ALTER TABLE tickets ADD COLUMN `+c+` TEXT`); err != nil {
				return err
			}
		}
	}
	_, err := tx.ExecContext(ctx, `CREATE INDEX IF NOT EXISTS tickets_claimable ON tickets (workspace, status, `+claimRank+`, number)
		WHERE status IN ('candidate', 'waiting_ai')`)
	return err
}

// claimColumns are the claim columns as scanned.
type claimColumns struct {
	by, forWhom, since, until, token sql.NullString
}

// claim is the ticket's claim, or nil when it has none.
func (c claimColumns) claim() (*board.Claim, error) {
	if !c.by.Valid {
		return nil, nil
	}
	since, err := parseTime(c.since.String)
	if err != nil {
		return nil, err
	}
	until, err := parseTime(c.until.String)
	if err != nil {
		return nil, err
	}
	return &board.Claim{By: c.by.String, For: c.forWhom.String, Since: since, Until: until, TokenHash: c.token.String}, nil
}

// claimArgs are the claim columns' values, in their order in ticketColumns.
func claimArgs(c *board.Claim) []any {
	if c == nil {
		return []any{nil, nil, nil, nil, nil}
	}
	return []any{c.By, c.For, formatTime(c.Since), formatTime(c.Until), c.TokenHash}
}

// ClaimCandidates reads the claimable index in claim_next's order,
// skipping tickets held at q.Now.
func (s *Store) ClaimCandidates(ctx context.Context, q board.ClaimQuery) (board.ClaimCandidates, error) {
	var out board.ClaimCandidates
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return out, err
	}
	defer tx.Rollback()
	err = tx.QueryRowContext(ctx, `SELECT ai_policy FROM workspaces WHERE slug = ?`, q.Workspace).Scan(&out.Policy)
	if errors.Is(err, sql.ErrNoRows) {
		return out, board.ErrNotFound
	}
	if err != nil {
		return out, err
	}
	if err := board.CheckPolicy(q.Readable, out.Policy); err != nil {
		return out, err
	}
	query := `SELECT ` + ticketColumns + ` FROM tickets t INDEXED BY tickets_claimable
		WHERE workspace = ? AND status = ? AND status IN ('candidate', 'waiting_ai')
		AND (claim_until IS NULL OR claim_until <= ?) AND ` + openBlockerAbsent
	args := []any{q.Workspace, string(q.Status), formatTime(q.Now)}
	if q.Owner != "" {
		query, args = query+` AND owner = ?`, append(args, q.Owner)
	}
	if q.Tag != "" {
		query, args = query+` AND EXISTS (SELECT 1 FROM ticket_tags g WHERE g.workspace = t.workspace AND g.tag = ? AND g.number = t.number)`, append(args, q.Tag)
	}
	rows, err := tx.QueryContext(ctx, query+` ORDER BY `+claimRank+`, number LIMIT ?`, append(args, q.Limit)...)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	out.Tickets = []board.Ticket{}
	for rows.Next() {
		t, err := scanTicket(rows)
		if err != nil {
			return out, err
		}
		out.Tickets = append(out.Tickets, t)
	}
	return out, rows.Err()
}
