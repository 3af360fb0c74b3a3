package sqlite

import (
	"context"
	"database/sql"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// CreateWorkspace commits the request record, the new workspace and its
// event in one transaction.
func (s *Store) CreateWorkspace(ctx context.Context, tx board.WorkspaceTx) (ledger.Record, error) {
	return tx.Request, s.inTx(ctx, func(ctx context.Context, dbtx *sql.Tx) error {
		if err := claimKey(ctx, dbtx, tx.Request.Key, tx.Request.CreatedAt); err != nil {
			return err
		}
		w := tx.Workspace
		res, err := dbtx.ExecContext(ctx, `INSERT INTO workspaces (slug, name, ai_policy) VALUES (?, ?, ?) ON CONFLICT (slug) DO NOTHING`,
			w.Slug, w.Name, string(w.AIPolicy))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return board.ErrExists
		}
		if tx.Event != nil {
			if err := insertEvent(ctx, dbtx, *tx.Event); err != nil {
				return err
			}
		}
		return putRequest(ctx, dbtx, tx.Request)
	})
}

// UpdateWorkspace commits the request record, the workspace's new name and
// policy, and the event in one transaction.
func (s *Store) UpdateWorkspace(ctx context.Context, tx board.WorkspaceTx) (ledger.Record, error) {
	return tx.Request, s.inTx(ctx, func(ctx context.Context, dbtx *sql.Tx) error {
		if err := claimKey(ctx, dbtx, tx.Request.Key, tx.Request.CreatedAt); err != nil {
			return err
		}
		w := tx.Workspace
		res, err := dbtx.ExecContext(ctx, `UPDATE workspaces SET name = ?, ai_policy = ? WHERE slug = ?`, w.Name, string(w.AIPolicy), w.Slug)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return board.ErrNotFound
		}
		if tx.Event != nil {
			if err := insertEvent(ctx, dbtx, *tx.Event); err != nil {
				return err
			}
		}
		return putRequest(ctx, dbtx, tx.Request)
	})
}
