package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// TransferInbox streams the inbox items of a workspace's events, every
// recipient's, by recipient and id. The inbox is keyed by recipient, not
// workspace, so this walks it whole once per workspace (an export, not a
// request, pays for it).
func (s *Store) TransferInbox(ctx context.Context, workspace string, fn func(board.InboxEntry) error) error {
	return inPages(func(last *board.InboxEntry) (*sql.Rows, error) {
		var afterRecipient, afterID string
		if last != nil {
			afterRecipient, afterID = last.Recipient, last.Item.ID
		}
		return s.read.QueryContext(ctx, `SELECT recipient, unread, data FROM inbox
			WHERE (recipient, id) > (?, ?) AND json_extract(data, '$.workspace') = ?
			ORDER BY recipient, id LIMIT ?`, afterRecipient, afterID, workspace, exportPage)
	}, func(rows scanner) (board.InboxEntry, error) {
		var e board.InboxEntry
		var unread bool
		var data string
		if err := rows.Scan(&e.Recipient, &unread, &data); err != nil {
			return e, err
		}
		if err := json.Unmarshal([]byte(data), &e.Item); err != nil {
			return e, err
		}
		e.Item.Read = !unread
		return e, nil
	}, fn)
}

// PutInboxItem stores a moved inbox item, read or unread as it is, in a
// workspace the store holds.
func (s *Store) PutInboxItem(ctx context.Context, e board.InboxEntry) (board.PutOutcome, error) {
	var out board.PutOutcome
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		out, err = putInboxItem(ctx, tx, e)
		return err
	})
	return out, err
}

func putInboxItem(ctx context.Context, tx *sql.Tx, e board.InboxEntry) (board.PutOutcome, error) {
	var data string
	err := tx.QueryRowContext(ctx, `SELECT data FROM inbox WHERE recipient = ? AND id = ?`, e.Recipient, e.Item.ID).Scan(&data)
	switch {
	case err == nil:
		have := board.InboxEntry{Recipient: e.Recipient}
		if err := json.Unmarshal([]byte(data), &have.Item); err != nil {
			return 0, err
		}
		return outcome(board.SameInboxEntry(have, e)), nil
	case !errors.Is(err, sql.ErrNoRows):
		return 0, err
	}
	var exists bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM workspaces WHERE slug = ?)`, e.Item.Workspace).Scan(&exists); err != nil {
		return 0, err
	}
	if !exists {
		return 0, board.ErrNotFound
	}
	it := e.Item
	it.Read = false // the column says it
	doc, err := json.Marshal(it)
	if err != nil {
		return 0, err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO inbox (recipient, id, unread, data) VALUES (?, ?, ?, ?)`, e.Recipient, it.ID, !e.Item.Read, string(doc))
	return board.Added, err
}
