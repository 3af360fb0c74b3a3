package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// moveInbox: a transfer puts inbox items as they stand, read or unread;
// a put again writes nothing (read or not: the reader may have gone on),
// another item under the same recipient and id collides, an item of a
// missing workspace is refused; the inbox reads them as a write's items,
// and the export streams them back with their read state.
func moveInbox(t *testing.T, f *fixture) {
	m := f.s
	at := T0.Add(time.Hour)
	item := func(id, reason string, read bool) board.InboxEntry {
		return board.InboxEntry{Recipient: "human:dee", Item: board.InboxItem{ID: id, Reason: reason, Workspace: "inbox", TicketID: "inbox-1",
			Title: "Plan", EventType: board.EventNoteAdded, Author: "ai:claude", OnBehalfOf: "human:ada", At: at, Read: read}}
	}
	read := item("019aef3c-0000-7000-8000-000000000001", board.InboxMention, true)
	unread := item("019aef3c-0000-7000-8000-000000000002", board.InboxWaiting, false)
	agents := unread
	agents.Recipient = "ai:claude|human:ada"
	for _, e := range []board.InboxEntry{read, unread, agents} {
		if err := board.ValidateTransferredInboxEntry(e); err != nil {
			t.Fatalf("%s's item %s does not validate: %v", e.Recipient, e.Item.ID, err)
		}
		out, err := m.PutInboxItem(f.ctx, e)
		wantPut(t, "an inbox item", out, err, board.Added)
	}
	markedSince := unread
	markedSince.Item.Read = true
	out, err := m.PutInboxItem(f.ctx, markedSince)
	wantPut(t, "the same item, read since", out, err, board.AlreadyThere)
	other := read
	other.Item.Reason = board.InboxActivity
	out, err = m.PutInboxItem(f.ctx, other)
	wantPut(t, "another item under the same id", out, err, board.Collision)
	lost := item("019aef3c-0000-7000-8000-000000000003", board.InboxMention, false)
	lost.Item.Workspace, lost.Item.TicketID = "nowhere", "nowhere-1"
	if _, err := m.PutInboxItem(f.ctx, lost); !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("an item of a missing workspace: %v, want not found", err)
	}

	page, _, err := m.ListInbox(f.ctx, board.InboxQuery{Recipient: "human:dee", Limit: 10})
	if err != nil || len(page) != 2 || page[0].ID != unread.Item.ID || page[0].Read || !page[1].Read {
		t.Fatalf("dee's inbox after the move: %+v, %v; want the unread item, then the read one", page, err)
	}
	if n, err := m.CountUnread(f.ctx, "human:dee", board.UnreadCountCap); err != nil || n != 1 {
		t.Fatalf("dee's unread count: %d, %v; want 1", n, err)
	}
	got := map[string]board.InboxEntry{}
	if err := m.TransferInbox(f.ctx, "inbox", func(e board.InboxEntry) error { got[e.Recipient+" "+e.Item.ID] = e; return nil }); err != nil {
		t.Fatal(err)
	}
	for _, want := range []board.InboxEntry{read, unread, agents} {
		have, ok := got[want.Recipient+" "+want.Item.ID]
		if !ok || !board.SameInboxEntry(have, want) || have.Item.Read != want.Item.Read {
			t.Errorf("the export streams %+v, want %+v", have, want)
		}
	}
	if len(got) != 3 {
		t.Errorf("the export streams %d items of inbox, want 3", len(got))
	}
	if err := m.TransferInbox(f.ctx, "reference", func(e board.InboxEntry) error {
		return errors.New("an item of another workspace: " + e.Item.ID)
	}); err != nil {
		t.Fatal(err)
	}
}
