package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// SimilarCandidates reads, in one read transaction, the workspace's policy,
// each word's newest title matches from the word index (searchschema.go),
// and the candidate tickets board.SimilarCandidateNumbers picks.
func (s *Store) SimilarCandidates(ctx context.Context, q board.SimilarQuery) ([]board.Ticket, error) {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var wsKey int64
	w, err := scanWorkspace(tx.QueryRowContext(ctx, `SELECT `+workspaceColumns+`, ws_key FROM workspaces WHERE slug = ?`, q.Workspace), &wsKey)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, board.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	if err := board.CheckPolicy(q.Readable, w.AIPolicy); err != nil {
		return nil, err
	}
	base := wsKey << ftsShift
	perWord := make([][]int64, len(q.Words))
	for i, word := range q.Words {
		rows, err := tx.QueryContext(ctx, `SELECT f.rowid - ? FROM ticket_words f
			WHERE ticket_words MATCH ? AND f.rowid > ? AND f.rowid < ? ORDER BY f.rowid DESC LIMIT ?`,
			base, `title_words : "`+word+`"`, base, base+1<<ftsShift, board.SimilarPerWord)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var n int64
			if err := rows.Scan(&n); err != nil {
				rows.Close()
				return nil, err
			}
			perWord[i] = append(perWord[i], n)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	numbers := board.SimilarCandidateNumbers(perWord, q.Exclude)
	if len(numbers) == 0 {
		return nil, nil
	}
	args := []any{q.Workspace}
	for _, n := range numbers {
		args = append(args, n)
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+ticketColumns+` FROM tickets WHERE workspace = ? AND number IN (?`+
		strings.Repeat(", ?", len(numbers)-1)+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byNumber := map[int64]board.Ticket{}
	for rows.Next() {
		t, err := scanTicket(rows)
		if err != nil {
			return nil, err
		}
		byNumber[t.Number] = t
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]board.Ticket, 0, len(numbers))
	for _, n := range numbers {
		if t, ok := byNumber[n]; ok {
			out = append(out, t)
		}
	}
	return out, nil
}
