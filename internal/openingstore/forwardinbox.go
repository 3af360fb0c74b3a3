package openingstore

import (
	"context"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// ListInbox is board.InboxStore's, answered once the store is open.
func (s *Store) ListInbox(ctx context.Context, q board.InboxQuery) ([]board.InboxItem, bool, error) {
	type page struct {
		items []board.InboxItem
		more  bool
	}
	p, err := call(ctx, s.get, func(st Backend) (page, error) {
		items, more, err := st.ListInbox(ctx, q)
		return page{items, more}, err
	})
	return p.items, p.more, err
}

// CountUnread is board.InboxStore's, answered once the store is open.
func (s *Store) CountUnread(ctx context.Context, recipient string, limit int) (int, error) {
	return call(ctx, s.get, func(st Backend) (int, error) { return st.CountUnread(ctx, recipient, limit) })
}

// MarkInboxRead is board.InboxStore's, answered once the store is open.
func (s *Store) MarkInboxRead(ctx context.Context, recipient string, ids []string) (int, error) {
	return call(ctx, s.get, func(st Backend) (int, error) { return st.MarkInboxRead(ctx, recipient, ids) })
}

// MarkAllInboxRead is board.InboxStore's, answered once the store is open.
func (s *Store) MarkAllInboxRead(ctx context.Context, recipient string) (int, error) {
	return call(ctx, s.get, func(st Backend) (int, error) { return st.MarkAllInboxRead(ctx, recipient) })
}
