package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// ListTickets returns one page, newest first. A text query is a search
// (search.go). Otherwise one filter drives the read through its index,
// newest first: the tag (ticket_tags), the owner or the status (their
// indexes), else the workspace's tickets by number. The other filters are
// checked on the rows that index yields; then at most MaxScan rows are
// examined, and a page that is not full by then is returned as partial,
// continuing below the last row examined.
func (s *Store) ListTickets(ctx context.Context, q board.TicketQuery) (board.TicketPage, error) {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return board.TicketPage{}, err
	}
	defer tx.Rollback()
	var page board.TicketPage
	var wsKey int64
	// The counts come with the policy in the same row read: a list's
	// total without counting.
	w, err := scanWorkspace(tx.QueryRowContext(ctx, `SELECT `+workspaceColumns+`, ws_key FROM workspaces WHERE slug = ?`, q.Workspace), &wsKey)
	if errors.Is(err, sql.ErrNoRows) {
		return page, board.ErrNotFound
	}
	if err != nil {
		return page, err
	}
	page.Policy, page.Counts = w.AIPolicy, w.Counts
	if err := board.CheckPolicy(q.Readable, page.Policy); err != nil {
		return page, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = board.DefaultLimit
	}
	scan := q.MaxScan
	if scan <= 0 {
		scan = board.DefaultScan
	}
	if q.Query != "" {
		return s.searchTickets(ctx, tx, q, wsKey, page, limit, scan)
	}
	plan := planList(q, wsKey)
	var query string
	var args []any
	if len(plan.checks) == 0 {
		// The index answers exactly: read the page straight from it.
		query = plan.direct + ` LIMIT ?`
		args = append(plan.directArgs, limit+1)
	} else {
		query = `SELECT ` + prefixed("t.", ticketColumns) + ` FROM tickets t WHERE t.workspace = ? AND t.number IN (` +
			plan.numbers + ` LIMIT ?) AND ` + strings.Join(plan.checks, " AND ") + ` ORDER BY t.number DESC LIMIT ?`
		args = append([]any{q.Workspace}, plan.numbersArgs...)
		args = append(append(append(args, scan), plan.checkArgs...), limit+1)
	}
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return page, err
	}
	defer rows.Close()
	page.Tickets = []board.Ticket{}
	budget := board.TextBudget{Max: q.MaxBytes}
	for rows.Next() {
		t, err := scanTicket(rows)
		if err != nil {
			return page, err
		}
		if len(page.Tickets) == limit {
			page.More = true // the extra row: more follow
			break
		}
		if !budget.Take(t) {
			page.More, page.Partial = true, true // cut to size: continue below the last one kept
			break
		}
		page.Tickets = append(page.Tickets, t)
	}
	if err := rows.Err(); err != nil {
		return page, err
	}
	rows.Close()
	if page.More || len(plan.checks) == 0 {
		return page, nil
	}
	// The page is not full: either the index ran out, or the scan bound
	// was reached, and then the rest continues below the last row examined.
	var last int64
	err = tx.QueryRowContext(ctx, plan.numbers+` LIMIT 1 OFFSET ?`, append(plan.numbersArgs, scan-1)...).Scan(&last)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return page, nil
	case err != nil:
		return page, err
	}
	page.More, page.Partial, page.Next = true, true, last
	return page, nil
}

// listPlan is how one listing reads: the index that drives it, as the page
// itself (direct, newest first, ticket columns) and as ticket numbers
// (numbers, newest first), and the checks left for the rows it yields.
type listPlan struct {
	direct      string
	directArgs  []any
	numbers     string
	numbersArgs []any
	checks      []string
	checkArgs   []any
}

func planList(q board.TicketQuery, wsKey int64) listPlan {
	var p listPlan
	cols := prefixed("t.", ticketColumns)
	status, owner, tag, parent := q.Status != "", q.Owner != "", q.Tag != "", q.Parent != ""
	switch {
	case parent:
		// At most MaxRelations sub-tickets: their rows drive the read.
		where, args := `r.kind = 'parent' AND r.from_id = ?`, []any{q.Parent}
		if q.Before > 0 {
			where, args = where+` AND t.number < ?`, append(args, q.Before)
		}
		from := ` FROM relations r JOIN tickets t ON t.id = r.to_id WHERE `
		p.direct = `SELECT ` + cols + from + where + ` ORDER BY t.number DESC`
		p.numbers = `SELECT t.number` + from + where + ` ORDER BY t.number DESC`
		p.directArgs, p.numbersArgs = args, args
		parent = false
	case tag:
		where, args := `g.workspace = ? AND g.tag = ?`, []any{q.Workspace, q.Tag}
		if q.Before > 0 {
			where, args = where+` AND g.number < ?`, append(args, q.Before)
		}
		p.direct = `SELECT ` + cols + ` FROM ticket_tags g JOIN tickets t ON t.workspace = g.workspace AND t.number = g.number WHERE ` +
			where + ` ORDER BY g.number DESC`
		p.numbers = `SELECT g.number FROM ticket_tags g WHERE ` + where + ` ORDER BY g.number DESC`
		p.directArgs, p.numbersArgs = args, args
		tag = false
	default:
		where, args := `t.workspace = ?`, []any{q.Workspace}
		switch {
		case owner:
			where, args, owner = where+` AND t.owner = ?`, append(args, q.Owner), false
		case status:
			where, args, status = where+` AND t.status = ?`, append(args, string(q.Status)), false
		}
		if q.Before > 0 {
			where, args = where+` AND t.number < ?`, append(args, q.Before)
		}
		p.direct = `SELECT ` + cols + ` FROM tickets t WHERE ` + where + ` ORDER BY t.number DESC`
		p.numbers = `SELECT t.number FROM tickets t WHERE ` + where + ` ORDER BY t.number DESC`
		p.directArgs, p.numbersArgs = args, args
	}
	if status {
		p.checks, p.checkArgs = append(p.checks, `t.status = ?`), append(p.checkArgs, string(q.Status))
	}
	if owner {
		p.checks, p.checkArgs = append(p.checks, `t.owner = ?`), append(p.checkArgs, q.Owner)
	}
	if q.Claimed != nil {
		check := `t.claim_until IS NOT NULL AND t.claim_until > ?`
		if !*q.Claimed {
			check = `(t.claim_until IS NULL OR t.claim_until <= ?)`
		}
		p.checks, p.checkArgs = append(p.checks, check), append(p.checkArgs, formatTime(q.Now))
	}
	if q.Ready {
		p.checks = append(p.checks, readyCheck)
	}
	if parent {
		p.checks = append(p.checks, `EXISTS (SELECT 1 FROM relations r WHERE r.kind = 'parent' AND r.from_id = ? AND r.to_id = t.id)`)
		p.checkArgs = append(p.checkArgs, q.Parent)
	}
	if tag {
		p.checks = append(p.checks, `EXISTS (SELECT 1 FROM ticket_tags g WHERE g.workspace = t.workspace AND g.tag = ? AND g.number = t.number)`)
		p.checkArgs = append(p.checkArgs, q.Tag)
	}
	return p
}
