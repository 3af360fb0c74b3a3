package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// workspaceColumns are a workspace's row: its counts are kept there by the
// tickets' triggers (migrate.go), never counted on read.
var workspaceColumns = func() string {
	cols := "slug, name, ai_policy"
	for _, st := range v1Statuses {
		cols += ", " + countColumn(st)
	}
	return cols
}()

// scanWorkspace reads workspaceColumns, then any extra columns into more.
func scanWorkspace(row scanner, more ...any) (board.Workspace, error) {
	w := board.Workspace{Counts: map[board.Status]int{}}
	counts := make([]int, len(v1Statuses))
	dest := []any{&w.Slug, &w.Name, &w.AIPolicy}
	for i := range counts {
		dest = append(dest, &counts[i])
	}
	dest = append(dest, more...)
	if err := row.Scan(dest...); err != nil {
		return w, err
	}
	for i, st := range v1Statuses {
		if counts[i] != 0 {
			w.Counts[st] = counts[i]
		}
	}
	return w, nil
}

// ListWorkspaces returns every workspace with its status counts.
func (s *Store) ListWorkspaces(ctx context.Context) ([]board.Workspace, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+workspaceColumns+` FROM workspaces ORDER BY slug`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []board.Workspace
	for rows.Next() {
		w, err := scanWorkspace(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// GetWorkspace returns one workspace with its status counts.
func (s *Store) GetWorkspace(ctx context.Context, slug string) (board.Workspace, error) {
	return getWorkspace(ctx, s.read, slug)
}

func getWorkspace(ctx context.Context, q querier, slug string) (board.Workspace, error) {
	w, err := scanWorkspace(q.QueryRowContext(ctx, `SELECT `+workspaceColumns+` FROM workspaces WHERE slug = ?`, slug))
	if errors.Is(err, sql.ErrNoRows) {
		return board.Workspace{}, board.ErrNotFound
	}
	return w, err
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
