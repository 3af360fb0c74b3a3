package dynamo_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
)

// TestInboxPageIsOneQuery: a page of an inbox, of its unread items, and
// the unread count each cost one request, a Query of the recipient's own
// partition, whatever the inbox holds; the count reads no more than the cap.
func TestInboxPageIsOneQuery(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			counter := &dynamo.RequestCounter{}
			store := openStore(t, ep.newEndpoint(t), counter, dynamo.Config{SerializeWrites: ep.name == "moto"})
			ctx := context.Background()
			if err := store.CreatePerson(ctx, board.Person{Handle: "bob", Name: "Bob", Role: board.RoleMember}, nil); err != nil {
				t.Fatal(err)
			}
			svc, err := board.NewService(board.Config{Store: store, BaseURL: "https://board.test"})
			if err != nil {
				t.Fatal(err)
			}
			alice := board.WithPrincipal(ctx, board.Principal{Author: "human:alice", Source: board.SourceWeb})
			tk, err := svc.CreateTicket(alice, board.CreateTicketInput{RequestID: "t", Workspace: "inbox", NewTicket: board.NewTicket{Title: "Busy"}})
			if err != nil {
				t.Fatal(err)
			}
			const notes = board.UnreadCountCap + 5
			for i := range notes {
				if _, err := svc.AddNote(alice, board.AddNoteInput{RequestID: fmt.Sprint("n", i), ID: tk.Ticket.ID, Body: "@bob look"}); err != nil {
					t.Fatal(err)
				}
			}
			cursor := ""
			for page := range 3 {
				for _, unread := range []bool{false, true} {
					counter.Reset()
					items, more, err := store.ListInbox(ctx, board.InboxQuery{Recipient: "human:bob", UnreadOnly: unread, Before: cursor, Limit: 10})
					if err != nil {
						t.Fatal(err)
					}
					if len(items) != 10 || !more {
						t.Fatalf("page %d (unread %v): %d items, more %v", page, unread, len(items), more)
					}
					if n := counter.Total(); n != 1 || counter.Ops() != "Query" {
						t.Errorf("page %d (unread %v): %d requests (%s), want one Query", page, unread, n, counter.Ops())
					}
					if n := counter.ItemsRead(); n > 11 {
						t.Errorf("page %d (unread %v) read %d items, want the page and one more", page, unread, n)
					}
					if !unread {
						cursor = items[len(items)-1].ID
					}
				}
			}
			counter.Reset()
			n, err := store.CountUnread(ctx, "human:bob", board.UnreadCountCap)
			if err != nil || n != board.UnreadCountCap {
				t.Fatalf("count %d %v, want the cap %d", n, err, board.UnreadCountCap)
			}
			if counter.Total() != 1 || counter.Ops() != "Query" || counter.ItemsRead() > board.UnreadCountCap {
				t.Errorf("count: %d requests (%s), %d items read; want one Query of at most %d", counter.Total(), counter.Ops(), counter.ItemsRead(), board.UnreadCountCap)
			}
		})
	}
}
