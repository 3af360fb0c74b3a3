package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// A relation is one row of relations: from_id blocks to_id, or is its
// parent. Both ends read the same row, through the primary key (from's
// end) or relations_to (to's end), so one insert or delete writes both
// directions. Whether a ticket is ready is not stored: the reads that ask
// (get_ticket, the ready filter, claim_next) look for a blocker not done
// through relations_to, at most MaxRelations rows per ticket.

// migrateRelations (8 → 9) adds the relations table.
func migrateRelations(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS relations (
			kind    TEXT NOT NULL,
			from_id TEXT NOT NULL,
			to_id   TEXT NOT NULL,
			PRIMARY KEY (kind, from_id, to_id)
		) WITHOUT ROWID;
		CREATE INDEX IF NOT EXISTS relations_to ON relations (kind, to_id, from_id);`)
	return err
}

// openBlockerAbsent is an SQL condition on tickets t: no ticket that
// blocks t is other than done.
const openBlockerAbsent = `NOT EXISTS (SELECT 1 FROM relations r JOIN tickets b ON b.id = r.from_id
	WHERE r.kind = 'blocks' AND r.to_id = t.id AND b.status != 'done')`

// readyCheck is the ready filter on tickets t: open, and no blocker open.
const readyCheck = `t.status IN ('candidate', 'waiting_ai') AND ` + openBlockerAbsent

// ReadRelations reads a ticket, its workspace's policy and its relations,
// in one snapshot.
func (s *Store) ReadRelations(ctx context.Context, id string) (board.Relations, error) {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return board.Relations{}, err
	}
	defer tx.Rollback()
	var r board.Relations
	if r.Ticket, r.Policy, err = readableTicket(ctx, tx, id, nil); err != nil {
		return r, err
	}
	return r, relationsInto(ctx, tx, &r)
}

// RelationsOf reads the tickets related to t.
func (s *Store) RelationsOf(ctx context.Context, t board.Ticket) (board.Relations, error) {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return board.Relations{}, err
	}
	defer tx.Rollback()
	r := board.Relations{Ticket: t}
	return r, relationsInto(ctx, tx, &r)
}

// relationsInto reads r.Ticket's relations into r, in one snapshot.
func relationsInto(ctx context.Context, tx *sql.Tx, r *board.Relations) error {
	id := r.Ticket.ID
	var err error
	ends := []struct {
		kind, by, other string
		into            *[]board.RelatedTicket
	}{
		{"blocks", "from_id", "to_id", &r.Blocks},
		{"blocks", "to_id", "from_id", &r.BlockedBy},
		{"parent", "from_id", "to_id", &r.Children},
	}
	for _, e := range ends {
		if *e.into, err = relatedTickets(ctx, tx, e.kind, e.by, e.other, id); err != nil {
			return err
		}
	}
	parents, err := relatedTickets(ctx, tx, "parent", "to_id", "from_id", id)
	if err != nil {
		return err
	}
	if len(parents) > 0 {
		r.Parent = &parents[0]
	}
	return nil
}

// relatedTickets reads the other ends of id's relations of kind, where id
// is the by column, in number order, up to one past the limit.
func relatedTickets(ctx context.Context, q querier, kind, by, other, id string) ([]board.RelatedTicket, error) {
	rows, err := q.QueryContext(ctx, `SELECT t.id, t.title, t.status FROM relations r JOIN tickets t ON t.id = r.`+other+`
		WHERE r.kind = ? AND r.`+by+` = ? ORDER BY t.number LIMIT ?`, kind, id, board.MaxRelations+1)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []board.RelatedTicket{}
	for rows.Next() {
		var t board.RelatedTicket
		if err := rows.Scan(&t.ID, &t.Title, &t.Status); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// SaveRelation commits a relate or unrelate if every ticket it was judged
// on is still at the version read.
func (s *Store) SaveRelation(ctx context.Context, tx board.RelationTx) (ledger.Record, error) {
	err := s.inTx(ctx, func(ctx context.Context, dbtx *sql.Tx) error {
		if err := claimKey(ctx, dbtx, tx.Request.Key, tx.Request.CreatedAt); err != nil {
			return err
		}
		var policy board.AIPolicy
		err := dbtx.QueryRowContext(ctx, `SELECT ai_policy FROM workspaces WHERE slug = ?`, tx.From.Workspace).Scan(&policy)
		if errors.Is(err, sql.ErrNoRows) {
			return board.ErrNotFound
		}
		if err != nil {
			return err
		}
		if err := board.CheckPolicy(tx.AllowedPolicies, policy); err != nil {
			return err
		}
		versions := map[string]int64{tx.From.ID: tx.From.Version, tx.To.ID: tx.To.Version}
		for id, v := range tx.Checked {
			versions[id] = v
		}
		for id, want := range versions {
			var v int64
			err := dbtx.QueryRowContext(ctx, `SELECT version FROM tickets WHERE id = ?`, id).Scan(&v)
			if errors.Is(err, sql.ErrNoRows) {
				return board.ErrNotFound
			}
			if err != nil {
				return err
			}
			if v != want {
				return board.ErrVersionConflict
			}
		}
		if tx.Link {
			stmt := `INSERT INTO relations (kind, from_id, to_id) VALUES (?, ?, ?)`
			if !tx.Add {
				stmt = `DELETE FROM relations WHERE kind = ? AND from_id = ? AND to_id = ?`
			}
			if _, err := dbtx.ExecContext(ctx, stmt, string(tx.Kind), tx.From.ID, tx.To.ID); err != nil {
				return err
			}
			for _, t := range []board.Ticket{tx.FromAfter, tx.ToAfter} {
				if _, err := dbtx.ExecContext(ctx, `UPDATE tickets SET version = ?, updated_at = ? WHERE id = ?`,
					t.Version, formatTime(t.UpdatedAt), t.ID); err != nil {
					return err
				}
			}
			for _, ev := range []board.Event{tx.FromEvent, tx.ToEvent} {
				if err := insertEvent(ctx, dbtx, ev); err != nil {
					return err
				}
			}
		}
		return putRequest(ctx, dbtx, tx.Request)
	})
	if err != nil {
		return ledger.Record{}, err
	}
	return tx.Request, nil
}

// relationFilters applies a search's ready and parent filters (arguments:
// ready, parent, parent) in the statement that finds the words, so they
// cost no scan of their own.
const relationFilters = ` AND (NOT ? OR (` + readyCheck + `))
	AND (? = '' OR EXISTS (SELECT 1 FROM relations r WHERE r.kind = 'parent' AND r.from_id = ? AND r.to_id = t.id))`
