package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// ListActivity walks events newest first in append order (seq). One
// workspace's feed walks an index that answers the workspace and at most
// one filter exactly (events_by_author, events_by_type, else
// events_by_workspace); the feed of every workspace walks the table itself
// and skips the events of workspaces the caller may not read. Whatever the
// index does not answer is checked here, within q.MaxScan events
// (board.FeedWalk), so a call reads at most Limit+1 rows when the index
// answers it and MaxScan rows otherwise.
func (s *Store) ListActivity(ctx context.Context, q board.FeedQuery) (board.FeedPage, error) {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true}) // policies and events in one snapshot
	if err != nil {
		return board.FeedPage{}, err
	}
	defer tx.Rollback()
	var where []string
	var args []any
	var hidden map[string]bool // workspaces whose events are skipped
	if q.Workspace != "" {
		var policy board.AIPolicy
		err := tx.QueryRowContext(ctx, `SELECT ai_policy FROM workspaces WHERE slug = ?`, q.Workspace).Scan(&policy)
		if errors.Is(err, sql.ErrNoRows) {
			return board.FeedPage{}, board.ErrNotFound
		}
		if err != nil {
			return board.FeedPage{}, err
		}
		if err := board.CheckPolicy(q.Readable, policy); err != nil {
			return board.FeedPage{}, err
		}
		where, args = append(where, `workspace = ?`), append(args, q.Workspace)
		switch {
		case q.Author != "":
			where, args = append(where, feedAuthor+` = ?`), append(args, q.Author)
		case q.Type != "":
			where, args = append(where, feedType+` = ?`), append(args, q.Type)
		}
	} else if hidden, err = unreadableWorkspaces(ctx, tx, q.Readable); err != nil {
		return board.FeedPage{}, err
	}
	if q.Before != nil {
		where, args = append(where, `seq < (SELECT seq FROM events WHERE id = ?)`), append(args, q.Before.ID)
	}
	walk := board.FeedWalk{Query: q}
	// Rows are read as the walk asks for them; the limit only caps what
	// SQLite may prepare.
	rows, err := tx.QueryContext(ctx, feedSQL(where), append(args, max(q.Limit+1, q.Scan()+1))...)
	if err != nil {
		return board.FeedPage{}, err
	}
	defer rows.Close()
	for rows.Next() {
		var ws, data string
		if err := rows.Scan(&ws, &data); err != nil {
			return board.FeedPage{}, err
		}
		var ev board.Event
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			return board.FeedPage{}, err
		}
		if !walk.Step(ev, hidden[ws]) {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return board.FeedPage{}, err
	}
	return walk.Done(), nil
}

// unreadableWorkspaces are the workspaces whose current policy is not in
// readable (none when readable is nil).
func unreadableWorkspaces(ctx context.Context, q querier, readable []board.AIPolicy) (map[string]bool, error) {
	if readable == nil {
		return nil, nil
	}
	rows, err := q.QueryContext(ctx, `SELECT slug, ai_policy FROM workspaces`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var slug string
		var policy board.AIPolicy
		if err := rows.Scan(&slug, &policy); err != nil {
			return nil, err
		}
		if !slices.Contains(readable, policy) {
			out[slug] = true
		}
	}
	return out, rows.Err()
}

// feedSQL is the feed's query under these conditions, newest first, its
// LIMIT the last argument.
func feedSQL(where []string) string {
	query := `SELECT workspace, data FROM events`
	if len(where) > 0 {
		query += ` WHERE ` + joinAnd(where)
	}
	return query + ` ORDER BY seq DESC LIMIT ?`
}

func joinAnd(conds []string) string {
	out := conds[0]
	for _, c := range conds[1:] {
		out += ` AND ` + c
	}
	return out
}
