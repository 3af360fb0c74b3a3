package boardfile_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// fillInboxes gives the board inboxes to move: a ticket of dee's (assigned,
// then waiting for dee), a note of ada's agent that mentions dee and ada and
// is then corrected, and dee's first item marked read; so dee's inbox holds
// read and unread items, and ada's a mention.
func fillInboxes(t *testing.T, f *fixture) {
	t.Helper()
	if err := f.store.CreatePerson(context.Background(), board.Person{Handle: "dee", Name: "Dee", Role: board.RoleMember, CreatedAt: t0}, nil); err != nil {
		t.Fatal(err)
	}
	admin := func() context.Context { return f.as("human:ada", "", board.RoleAdmin) }
	agent := func() context.Context { return f.as("ai:alice", "human:ada", "") }
	tk, err := f.svc.CreateTicket(admin(), board.CreateTicketInput{RequestID: "dee-1", Workspace: "inbox",
		NewTicket: board.NewTicket{Title: "For dee", Owner: "human:dee"}})
	if err != nil {
		t.Fatal(err)
	}
	n, err := f.svc.AddNote(agent(), board.AddNoteInput{RequestID: "dee-note", ID: tk.Ticket.ID, Body: "@dee please look; @ada fyi"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.EditNote(agent(), board.EditNoteInput{RequestID: "dee-edit", NoteID: n.Note.ID, Body: "@dee please look again; @ada fyi"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.MoveTicket(admin(), board.MoveTicketInput{RequestID: "dee-wait", ID: tk.Ticket.ID, Status: board.StatusWaitingHuman, Reason: "your call"}); err != nil {
		t.Fatal(err)
	}
	dee := f.as("human:dee", "", board.RoleMember)
	l, err := f.svc.ListInbox(dee, board.ListInboxInput{})
	if err != nil || len(l.Items) != 3 {
		t.Fatalf("dee's inbox: %+v, %v; want 3 items", l.Items, err)
	}
	oldest := l.Items[len(l.Items)-1]
	if _, err := f.svc.MarkInboxRead(dee, board.MarkInboxReadInput{RequestID: "dee-read", IDs: []string{oldest.ID}}); err != nil {
		t.Fatal(err)
	}
}

// checkInboxFile: the export carries dee's items read and unread, ada's
// mention, the mentions and addressing on the events, and the edit.
func checkInboxFile(t *testing.T, file []byte) {
	t.Helper()
	var read, unread, mention, edited, addressed bool
	for _, l := range items(file) {
		switch {
		case strings.HasPrefix(l, `{"kind":"inbox_item"`):
			read = read || strings.Contains(l, `"recipient":"human:dee"`) && strings.Contains(l, `"read":true`)
			unread = unread || strings.Contains(l, `"recipient":"human:dee"`) && strings.Contains(l, `"read":false`)
			mention = mention || strings.Contains(l, `"recipient":"human:ada"`) && strings.Contains(l, `"reason":"mention"`)
		case strings.HasPrefix(l, `{"kind":"event"`):
			edited = edited || strings.Contains(l, `"type":"note.edited"`) && strings.Contains(l, `@dee please look again`)
			addressed = addressed || strings.Contains(l, `"mentions":["human:dee","human:ada"]`) &&
				strings.Contains(l, `"inbox":[{"to":"human:dee","reason":"mention"},{"to":"human:ada","reason":"mention"}]`)
		}
	}
	if !read || !unread || !mention || !edited || !addressed {
		t.Fatalf("the export lacks: dee's read item %v, dee's unread items %v, ada's mention %v, the note's edit %v, the note's mentions and addressing %v",
			read, unread, mention, edited, addressed)
	}
}

// sameInboxes: each person's inbox reads the same on b as on a, page,
// read state and unread count.
func sameInboxes(t *testing.T, a, b *fixture) {
	t.Helper()
	for _, who := range []string{"human:dee", "human:ada"} {
		ctx := board.WithPrincipal(context.Background(), board.Principal{Author: who, Source: board.SourceWeb})
		la, err := a.svc.ListInbox(ctx, board.ListInboxInput{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		lb, err := b.svc.ListInbox(ctx, board.ListInboxInput{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(la.Items) == 0 || !sameAnswer(la, lb) {
			t.Errorf("%s's inbox on %s:\n%+v\nwant\n%+v", who, b.be.Name, lb, la)
		}
	}
}
