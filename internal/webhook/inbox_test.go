package webhook_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// TestInboxWebhookSendsThatPersonsInbox: the local sender posts to a
// subscription of bob's inbox exactly the events of bob's inbox (a
// mention, an assignment, his ticket moved to waiting_human), in order,
// as Slack lines addressed to him; nothing of anyone else's.
func TestInboxWebhookSendsThatPersonsInbox(t *testing.T) {
	f := newFixture(t, webhook.Config{AllowPrivate: true})
	for _, h := range []string{"bob", "carol"} {
		if err := f.store.CreatePerson(t.Context(), board.Person{Handle: h, Name: h, Role: board.RoleMember, CreatedAt: f.clock.Now()}, nil); err != nil {
			t.Fatal(err)
		}
	}
	slack, plain := newReceiver(t), newReceiver(t)
	f.subscribe(t, slack, webhook.CreateInput{Inbox: "bob", Format: webhook.FormatSlack})
	f.subscribe(t, plain, webhook.CreateInput{Inbox: "bob"})
	claude := board.WithPrincipal(t.Context(), board.Principal{Author: "ai:claude", Source: board.SourceMCP})
	bob := board.WithPrincipal(t.Context(), board.Principal{Author: "human:bob", Role: board.RoleMember, Source: board.SourceWeb})

	other := f.create(t, "Nobody's business")
	add := func(ctx context.Context, id, body string) {
		t.Helper()
		if _, err := f.board.AddNote(ctx, board.AddNoteInput{RequestID: f.rid(), ID: id, Body: body}); err != nil {
			t.Fatal(err)
		}
	}
	add(f.admin, other, "@carol please")    // carol's
	add(f.admin, other, "@bob have a look") // bob: mention
	mine, err := f.board.CreateTicket(f.admin, board.CreateTicketInput{RequestID: f.rid(), Workspace: "inbox",
		NewTicket: board.NewTicket{Title: "Pick a database", Owner: "human:bob"}}) // bob: assigned
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.board.MoveTicket(claude, board.MoveTicketInput{RequestID: f.rid(), ID: mine.Ticket.ID, Status: board.StatusWaitingHuman,
		Reason: "two options"}); err != nil { // bob: waiting
		t.Fatal(err)
	}
	add(bob, mine.Ticket.ID, "Postgres") // bob's own: not told
	f.move(t, other, board.StatusDoing)  // alice's ticket, not bob's
	f.hooks.RunOnce(t.Context())

	inbox, err := f.board.ListInbox(bob, board.ListInboxInput{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, it := range slices.Backward(inbox.Items) {
		want = append(want, it.ID)
	}
	if len(want) != 3 {
		t.Fatalf("bob's inbox holds %d items, want 3", len(want))
	}
	for name, r := range map[string]*receiver{"slack": slack, "json": plain} {
		if ids := deliveryIDs(r.deliveries()); !slices.Equal(ids, want) {
			t.Fatalf("%s: delivered %v, want bob's inbox oldest first %v", name, ids, want)
		}
	}
	var lines []string
	for _, d := range slack.deliveries() {
		var m map[string]string
		if err := json.Unmarshal(d.Body, &m); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, m["text"])
	}
	for i, want := range []string{
		"human:alice mentioned you on " + other + ": Nobody's business <https://ledger.example/tickets/" + other + "|open>",
		"human:alice assigned you " + mine.Ticket.ID + ": Pick a database",
		"ai:claude needs you on " + mine.Ticket.ID + ": Pick a database <https://ledger.example/tickets/" + mine.Ticket.ID + "|open> — two options",
	} {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("slack line %d: %q, want it to start %q", i, lines[i], want)
		}
	}
	var p webhook.Payload
	if err := json.Unmarshal(plain.deliveries()[2].Body, &p); err != nil {
		t.Fatal(err)
	}
	if p.Data.Inbox == nil || *p.Data.Inbox != (webhook.InboxRef{Person: "bob", Reason: board.InboxWaiting}) {
		t.Errorf("the JSON delivery says inbox %+v, want bob's, waiting", p.Data.Inbox)
	}
}
