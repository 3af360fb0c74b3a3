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
// events_by_workspace). Whatever the index does not answer is checked here,
// within q.MaxScan events (board.FeedWalk), so a call reads at most Limit+1
// rows when the index answers it and MaxScan rows otherwise.
//
// The feed of every workspace walks the table itself when the caller may
// read every workspace. When some are hidden from the caller, it walks
// each readable workspace's index as above and merges the walks in append
// order: the hidden workspaces' events are never read, so they count
// toward no bound, end no page and are never a position. That costs one
// query per readable workspace.
//
// A position (q.Before) is resolved only among the events the call may
// read: an event of another workspace, or of one hidden since, places
// nothing, and the call is refused.
func (s *Store) ListActivity(ctx context.Context, q board.FeedQuery) (board.FeedPage, error) {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true}) // policies and events in one snapshot
	if err != nil {
		return board.FeedPage{}, err
	}
	defer tx.Rollback()
	var slugs []string // the workspaces to walk; nil: every one, through the table
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
		slugs = []string{q.Workspace}
	} else if slugs, err = readableWorkspaces(ctx, tx, q.Readable); err != nil {
		return board.FeedPage{}, err
	}
	var before []any // the bound on seq, as a query argument
	if q.Before != nil {
		seq, err := feedPosition(ctx, tx, q.Before.ID, slugs)
		if err != nil {
			return board.FeedPage{}, err
		}
		before = []any{seq}
	}
	walk := board.FeedWalk{Query: q}
	// Rows are read as the walk asks for them; the limit only caps what
	// SQLite may prepare.
	limit := max(q.Limit+1, q.Scan()+1)
	var streams []*eventStream
	defer func() {
		for _, st := range streams {
			st.rows.Close()
		}
	}()
	if slugs == nil {
		st, err := openEventStream(ctx, tx, nil, nil, before, limit)
		if err != nil {
			return board.FeedPage{}, err
		}
		streams = append(streams, st)
	}
	for _, slug := range slugs {
		where, args := workspaceFeed(slug, q)
		st, err := openEventStream(ctx, tx, where, args, before, limit)
		if err != nil {
			return board.FeedPage{}, err
		}
		streams = append(streams, st)
	}
	for st := newestHead(streams); st != nil; st = newestHead(streams) {
		if !walk.Step(st.head) {
			break
		}
		if err := st.next(); err != nil {
			return board.FeedPage{}, err
		}
	}
	return walk.Done(), nil
}

// workspaceFeed is the condition of one workspace's feed: the workspace
// and the one filter its indexes answer (author first, else type).
func workspaceFeed(slug string, q board.FeedQuery) (where []string, args []any) {
	where, args = []string{`workspace = ?`}, []any{slug}
	switch {
	case q.Author != "":
		where, args = append(where, feedAuthor+` = ?`), append(args, q.Author)
	case q.Type != "":
		where, args = append(where, feedType+` = ?`), append(args, q.Type)
	}
	return where, args
}

// feedPosition is the seq of the event a cursor continues before, found
// only in the workspaces walked (slugs; nil: any).
func feedPosition(ctx context.Context, tx *sql.Tx, id string, slugs []string) (int64, error) {
	var seq int64
	var ws string
	err := tx.QueryRowContext(ctx, `SELECT seq, workspace FROM events WHERE id = ?`, id).Scan(&seq, &ws)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	if err != nil || (slugs != nil && !slices.Contains(slugs, ws)) {
		return 0, board.Errorf(board.CodeInvalid, "cursor names no event you may read here (its workspace may have been hidden or removed since); omit cursor to start again from the newest")
	}
	return seq, nil
}

// readableWorkspaces are the workspaces whose current policy is in
// readable, by slug; nil when that is every workspace (readable nil, or
// none hidden), which the feed walks as one table.
func readableWorkspaces(ctx context.Context, q querier, readable []board.AIPolicy) ([]string, error) {
	if readable == nil {
		return nil, nil
	}
	rows, err := q.QueryContext(ctx, `SELECT slug, ai_policy FROM workspaces ORDER BY slug`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out, hidden := []string{}, false
	for rows.Next() {
		var slug string
		var policy board.AIPolicy
		if err := rows.Scan(&slug, &policy); err != nil {
			return nil, err
		}
		if slices.Contains(readable, policy) {
			out = append(out, slug)
		} else {
			hidden = true
		}
	}
	if err := rows.Err(); err != nil || !hidden {
		return nil, err
	}
	return out, nil
}

// eventStream is one query's events, newest first, read a row at a time;
// head is the event not yet given to the walk.
type eventStream struct {
	rows *sql.Rows
	head board.Event
	seq  int64
	done bool
}

func openEventStream(ctx context.Context, tx *sql.Tx, where []string, args []any, before []any, limit int) (*eventStream, error) {
	if before != nil {
		where, args = append(where, `seq < ?`), append(args, before...)
	}
	rows, err := tx.QueryContext(ctx, feedSQL(where), append(args, limit)...)
	if err != nil {
		return nil, err
	}
	st := &eventStream{rows: rows}
	if err := st.next(); err != nil {
		rows.Close()
		return nil, err
	}
	return st, nil
}

// next moves head to the stream's next event, or marks the stream done.
func (st *eventStream) next() error {
	if !st.rows.Next() {
		st.done = true
		return st.rows.Err()
	}
	var data string
	if err := st.rows.Scan(&st.seq, &data); err != nil {
		return err
	}
	st.head = board.Event{}
	return json.Unmarshal([]byte(data), &st.head)
}

// newestHead is the stream whose head was appended last; nil when every
// stream is done.
func newestHead(streams []*eventStream) *eventStream {
	var best *eventStream
	for _, st := range streams {
		if !st.done && (best == nil || st.seq > best.seq) {
			best = st
		}
	}
	return best
}

// feedSQL is the feed's query under these conditions, newest first, its
// LIMIT the last argument.
func feedSQL(where []string) string {
	query := `SELECT seq, data FROM events`
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
