package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// WorkspacePolicy reads a workspace's ai_policy.
func (s *Store) WorkspacePolicy(ctx context.Context, slug string) (board.AIPolicy, error) {
	var p board.AIPolicy
	err := s.read.QueryRowContext(ctx, `SELECT ai_policy FROM workspaces WHERE slug = ?`, slug).Scan(&p)
	if errors.Is(err, sql.ErrNoRows) {
		return "", board.ErrNotFound
	}
	return p, err
}

// Ping reads one row through the read pool: the file is there and readable.
func (s *Store) Ping(ctx context.Context) error {
	var n int
	return s.read.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM workspaces LIMIT 1)`).Scan(&n)
}
