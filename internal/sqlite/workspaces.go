package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// ListWorkspaces returns every workspace with its status counts.
func (s *Store) ListWorkspaces(ctx context.Context) ([]board.Workspace, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT slug, name, ai_policy FROM workspaces ORDER BY slug`)
	if err != nil {
		return nil, err
	}
	var out []board.Workspace
	for rows.Next() {
		var w board.Workspace
		if err := rows.Scan(&w.Slug, &w.Name, &w.AIPolicy); err != nil {
			rows.Close()
			return nil, err
		}
		w.Counts = map[board.Status]int{}
		out = append(out, w)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	counts, err := s.read.QueryContext(ctx, `SELECT workspace, status, count(*) FROM tickets GROUP BY workspace, status`)
	if err != nil {
		return nil, err
	}
	defer counts.Close()
	for counts.Next() {
		var slug string
		var st board.Status
		var n int
		if err := counts.Scan(&slug, &st, &n); err != nil {
			return nil, err
		}
		for i := range out {
			if out[i].Slug == slug {
				out[i].Counts[st] = n
			}
		}
	}
	return out, counts.Err()
}

// GetWorkspace returns one workspace with its status counts.
func (s *Store) GetWorkspace(ctx context.Context, slug string) (board.Workspace, error) {
	w := board.Workspace{Counts: map[board.Status]int{}}
	err := s.read.QueryRowContext(ctx, `SELECT slug, name, ai_policy FROM workspaces WHERE slug = ?`, slug).
		Scan(&w.Slug, &w.Name, &w.AIPolicy)
	if errors.Is(err, sql.ErrNoRows) {
		return board.Workspace{}, board.ErrNotFound
	}
	if err != nil {
		return board.Workspace{}, err
	}
	rows, err := s.read.QueryContext(ctx, `SELECT status, count(*) FROM tickets WHERE workspace = ? GROUP BY status`, slug)
	if err != nil {
		return board.Workspace{}, err
	}
	defer rows.Close()
	for rows.Next() {
		var st board.Status
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			return board.Workspace{}, err
		}
		w.Counts[st] = n
	}
	return w, rows.Err()
}

// SetWorkspacePolicy changes ai_policy and appends the event atomically.
func (s *Store) SetWorkspacePolicy(ctx context.Context, slug string, policy board.AIPolicy, ev board.Event) error {
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE workspaces SET ai_policy = ? WHERE slug = ?`, string(policy), slug)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return board.ErrNotFound
		}
		return insertEvent(ctx, tx, ev)
	})
}
