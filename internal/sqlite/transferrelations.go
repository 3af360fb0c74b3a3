package sqlite

import (
	"context"
	"database/sql"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// transferredRelationPos is where a relations page ends: the blocker's or
// parent's number, the kind and the other end's number.
type transferredRelationPos struct {
	rel      board.TransferredRelation
	from, to int64
}

// TransferRelations streams the relations of a workspace's tickets once
// each, from the end that holds them: by that ticket's number, blocks
// before parent, then by the other end's number.
func (s *Store) TransferRelations(ctx context.Context, workspace string, fn func(board.TransferredRelation) error) error {
	return inPages(func(last *transferredRelationPos) (*sql.Rows, error) {
		var from, to int64
		kind := ""
		if last != nil {
			from, kind, to = last.from, string(last.rel.Kind), last.to
		}
		return s.read.QueryContext(ctx, `SELECT r.kind, r.from_id, r.to_id, f.number, t.number
			FROM relations r JOIN tickets f ON f.id = r.from_id JOIN tickets t ON t.id = r.to_id
			WHERE f.workspace = ? AND (f.number, r.kind, t.number) > (?, ?, ?)
			ORDER BY f.number, r.kind, t.number LIMIT ?`, workspace, from, kind, to, exportPage)
	}, func(row scanner) (transferredRelationPos, error) {
		var p transferredRelationPos
		err := row.Scan(&p.rel.Kind, &p.rel.From, &p.rel.To, &p.from, &p.to)
		return p, err
	}, func(p transferredRelationPos) error { return fn(p.rel) })
}

// PutRelation stores a moved relation between two stored tickets, if
// absent: one row holds both ends, and readiness is read from it, so
// nothing else changes.
func (s *Store) PutRelation(ctx context.Context, r board.TransferredRelation) (board.PutOutcome, error) {
	var out board.PutOutcome
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM tickets WHERE id IN (?, ?)`, r.From, r.To).Scan(&n); err != nil {
			return err
		}
		if n != 2 {
			return board.ErrNotFound
		}
		res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO relations (kind, from_id, to_id) VALUES (?, ?, ?)`, string(r.Kind), r.From, r.To)
		if err != nil {
			return err
		}
		added, err := res.RowsAffected()
		out = board.Added
		if added == 0 {
			out = board.AlreadyThere
		}
		return err
	})
	return out, err
}
