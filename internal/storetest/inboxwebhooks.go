package storetest

import (
	"slices"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// A webhook may follow one person's inbox: it matches exactly the events
// that put an item in that inbox, decided from the event alone (the
// addressing its write kept), so the events as the store gives them back
// must carry it.

func inboxWebhookTests() []contractTest {
	return []contractTest{
		{"a webhook of bob's inbox matches exactly the events in bob's inbox", testInboxWebhookMatches},
		{"a webhook of someone's inbox needs the person to exist; nothing is written otherwise", testInboxWebhookNeedsPerson},
	}
}

func testInboxWebhookMatches(t *testing.T, f *fixture) {
	r := newInboxRig(t, f, "alice", "bob", "carol")
	alice, bob, carol := personCtx(f, "alice"), personCtx(f, "bob"), personCtx(f, "carol")
	plain := r.create(t, alice, "inbox", board.NewTicket{Title: "Not bob's"})
	r.note(t, alice, plain.ID, "@carol have a look")                                          // carol's, not bob's
	r.note(t, alice, plain.ID, "@bob have a look")                                            // mention
	owned := r.create(t, alice, "inbox", board.NewTicket{Title: "Bob's", Owner: "human:bob"}) // assigned
	r.move(t, onBehalf(f, "claude", "alice"), owned.ID, board.StatusWaitingHuman, "pick one") // waiting
	r.note(t, bob, owned.ID, "done, @alice")                                                  // bob's own write: not his inbox
	carols := r.create(t, alice, "inbox", board.NewTicket{Title: "Carol's", Owner: "human:carol"})
	r.move(t, alice, carols.ID, board.StatusWaitingHuman, "") // waits for carol only
	r.move(t, carol, plain.ID, board.StatusDoing, "")         // on alice's ticket: not bob's

	items := r.inbox(t, bob, board.ListInboxInput{Limit: board.MaxLimit}).Items
	reasonOf := map[string]string{}
	for _, it := range items {
		reasonOf[it.ID] = it.Reason
	}
	wantLines(t, "bob's inbox", r.reasons(t, bob),
		"waiting "+owned.ID+" ticket.moved", "assigned "+owned.ID+" ticket.created", "mention "+plain.ID+" note.added")

	admin := board.WithPrincipal(f.ctx, board.Principal{Author: "human:admin", Role: board.RoleAdmin, Source: board.SourceREST})
	feed, err := r.svc.ListActivity(admin, board.ListActivityInput{Workspace: "inbox", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	everything := webhook.Subscription{Inbox: "bob"}
	moves := webhook.Subscription{Inbox: "bob", Events: []webhook.EventFilter{{Kind: board.EventTicketMoved, To: board.StatusWaitingHuman}}}
	var matched, movesMatched []string
	for _, ev := range feed.Events {
		in := reasonOf[ev.ID] != ""
		if got := everything.Matches(ev); got != in {
			t.Errorf("%s %s on %s (inbox %+v): matches %v, in bob's inbox %v", ev.Type, ev.ID, ev.TicketID, ev.Inbox, got, in)
		}
		if got := ev.InboxReason("human:bob"); got != reasonOf[ev.ID] {
			t.Errorf("%s on %s: the event says bob's reason is %q, his inbox %q", ev.Type, ev.TicketID, got, reasonOf[ev.ID])
		}
		if everything.Matches(ev) {
			matched = append(matched, ev.ID)
		}
		if moves.Matches(ev) {
			movesMatched = append(movesMatched, ev.TicketID)
		}
	}
	if len(matched) != len(items) {
		t.Errorf("the webhook matches %d events, bob's inbox holds %d", len(matched), len(items))
	}
	if !slices.Equal(movesMatched, []string{owned.ID}) {
		t.Errorf("bob's webhook of moves to waiting_human matches moves of %v, want only %s", movesMatched, owned.ID)
	}
	if (webhook.Subscription{Inbox: "dave"}).Matches(feed.Events[0]) {
		t.Error("a webhook of an inbox no event went to matches an event")
	}
}

func testInboxWebhookNeedsPerson(t *testing.T, f *fixture) {
	newInboxRig(t, f, "bob")
	hooks := webhook.New(webhook.Config{Store: f.s, Secrets: f.s, Workspaces: f.s, BaseURL: "https://ledger.example"})
	admin := board.WithPrincipal(f.ctx, board.Principal{Author: "human:admin", Role: board.RoleAdmin, Source: board.SourceREST})
	for _, handle := range []string{"nobody", "human:bob", "@bob"} {
		_, err := hooks.Create(admin, webhook.CreateInput{RequestID: f.id("hook"), Workspace: "inbox", URL: "https://hooks.example.com/bob",
			Format: webhook.FormatSlack, Inbox: handle})
		if board.ErrorCode(err) != board.CodeInvalid || board.ErrorField(err) != "inbox" {
			t.Errorf("inbox %q: %v, want invalid in field inbox", handle, err)
		}
	}
	subs, err := f.s.ListSubscriptions(f.ctx, "inbox")
	if err != nil || len(subs) != 0 {
		t.Fatalf("refused creations wrote %d subscriptions (%v)", len(subs), err)
	}
	made, err := hooks.Create(admin, webhook.CreateInput{RequestID: f.id("hook"), Workspace: "inbox", URL: "https://hooks.example.com/bob",
		Format: webhook.FormatSlack, Inbox: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := f.s.GetSubscription(f.ctx, made.Subscription.ID)
	if err != nil || stored.Inbox != "bob" {
		t.Fatalf("the subscription reads back with inbox %q (%v), want bob", stored.Inbox, err)
	}
}
