package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// migrateInbox (9 → 10) adds the inbox and the note's on_behalf_of. An inbox is one
// recipient's rows by id (an event's UUIDv7, so by time): a page is one
// range of the primary key; unread rows are also in a partial index that
// covers the row, so an unread page and the unread count are one range of
// that index. Items are written by the write that adds their event, in its
// transaction (insertInbox). It adds only what is missing, so a file whose
// version was set back runs it again unharmed.
func migrateInbox(ctx context.Context, tx *sql.Tx) error {
	var have int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('notes') WHERE name = 'on_behalf_of'`).Scan(&have); err != nil {
		return err
	}
	if have == 0 {
		if _, err := tx.ExecContext(ctx, `ALTER TABLE notes ADD COLUMN on_behalf_of TEXT NOT NULL DEFAULT ''`); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `
CREATE TABLE IF NOT EXISTS inbox (
	recipient TEXT NOT NULL, -- human:<handle>, or an agent with its person (board.InboxEntry)
	id        TEXT NOT NULL, -- the event's id
	unread    INTEGER NOT NULL,
	data      TEXT NOT NULL, -- the board.InboxItem as JSON, without read
	PRIMARY KEY (recipient, id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS inbox_unread ON inbox (recipient, id, data) WHERE unread = 1;`)
	return err
}

// insertInbox writes the items a write adds, in its transaction.
func insertInbox(ctx context.Context, tx *sql.Tx, entries []board.InboxEntry) error {
	for _, e := range entries {
		it := e.Item
		it.Read = false
		data, err := json.Marshal(it)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO inbox (recipient, id, unread, data) VALUES (?, ?, 1, ?)
			ON CONFLICT (recipient, id) DO NOTHING`, e.Recipient, it.ID, string(data)); err != nil {
			return err
		}
	}
	return nil
}

// inboxSQL is a page's query: one range of the primary key, or of the
// unread index, walked newest first.
func inboxSQL(q board.InboxQuery) (string, []any) {
	where, args := `recipient = ?`, []any{q.Recipient}
	if q.Before != "" {
		where, args = where+` AND id < ?`, append(args, q.Before)
	}
	from := `inbox`
	if q.UnreadOnly {
		from, where = `inbox INDEXED BY inbox_unread`, where+` AND unread = 1`
	}
	return `SELECT unread, data FROM ` + from + ` WHERE ` + where + ` ORDER BY id DESC LIMIT ?`, append(args, q.Limit+1)
}

// ListInbox reads one page in one range of an index.
func (s *Store) ListInbox(ctx context.Context, q board.InboxQuery) ([]board.InboxItem, bool, error) {
	query, args := inboxSQL(q)
	rows, err := s.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	items := []board.InboxItem{}
	for rows.Next() {
		if len(items) == q.Limit {
			return items, true, rows.Close()
		}
		var unread bool
		var data string
		if err := rows.Scan(&unread, &data); err != nil {
			return nil, false, err
		}
		var it board.InboxItem
		if err := json.Unmarshal([]byte(data), &it); err != nil {
			return nil, false, err
		}
		it.Read = !unread
		items = append(items, it)
	}
	return items, false, rows.Err()
}

// CountUnread counts in the unread index, no further than limit.
func (s *Store) CountUnread(ctx context.Context, recipient string, limit int) (int, error) {
	var n int
	err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM inbox INDEXED BY inbox_unread
		WHERE recipient = ? AND unread = 1 LIMIT ?)`, recipient, limit).Scan(&n)
	return n, err
}

// MarkInboxRead marks the named unread items read.
func (s *Store) MarkInboxRead(ctx context.Context, recipient string, ids []string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	args := []any{recipient}
	for _, id := range ids {
		args = append(args, id)
	}
	return s.markRead(ctx, `UPDATE inbox SET unread = 0 WHERE recipient = ? AND unread = 1
		AND id IN (?`+strings.Repeat(`, ?`, len(ids)-1)+`)`, args...)
}

// MarkAllInboxRead marks every unread item of the recipient read.
func (s *Store) MarkAllInboxRead(ctx context.Context, recipient string) (int, error) {
	return s.markRead(ctx, `UPDATE inbox SET unread = 0 WHERE recipient = ? AND unread = 1`, recipient)
}

func (s *Store) markRead(ctx context.Context, query string, args ...any) (int, error) {
	var n int64
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), err
}
