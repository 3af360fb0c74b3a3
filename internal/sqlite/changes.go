package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// WorkspaceMarker is one statement: the workspace's row (its policy) and
// the last row of events_by_workspace, the newest event by append order.
// The policy is judged before the event id is looked at, as every read
// does; the id of a workspace the caller may not read is never returned.
func (s *Store) WorkspaceMarker(ctx context.Context, slug string, readable []board.AIPolicy) (string, error) {
	var policy board.AIPolicy
	var id sql.NullString
	err := s.read.QueryRowContext(ctx, `SELECT w.ai_policy,
		(SELECT e.id FROM events e WHERE e.workspace = w.slug ORDER BY e.seq DESC LIMIT 1)
		FROM workspaces w WHERE w.slug = ?`, slug).Scan(&policy, &id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", board.ErrNotFound
	}
	if err != nil {
		return "", err
	}
	if err := board.CheckPolicy(readable, policy); err != nil {
		return "", err
	}
	return id.String, nil
}

// TicketMarker is one statement: the ticket's version with its
// workspace's policy.
func (s *Store) TicketMarker(ctx context.Context, id string, readable []board.AIPolicy) (int64, error) {
	var policy board.AIPolicy
	var version int64
	err := s.read.QueryRowContext(ctx, `SELECT t.version, w.ai_policy
		FROM tickets t JOIN workspaces w ON w.slug = t.workspace WHERE t.id = ?`, id).Scan(&version, &policy)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, board.ErrNotFound
	}
	if err != nil {
		return 0, err
	}
	if err := board.CheckPolicy(readable, policy); err != nil {
		return 0, err
	}
	return version, nil
}
