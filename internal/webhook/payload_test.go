package webhook

import (
	"slices"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// TestSlackLinesOfClaimsAndLinks: a Slack channel following a fleet reads
// who took, gave back or linked which ticket, not a bare event kind.
func TestSlackLinesOfClaimsAndLinks(t *testing.T) {
	base := board.Event{TicketID: "inbox-7", Title: "Fix <login>", Workspace: "inbox", Author: "ai:claude", OnBehalfOf: "human:alice"}
	for _, c := range []struct {
		change func(*board.Event)
		want   string
	}{
		{func(e *board.Event) { e.Type = board.EventTicketClaimed }, "claimed inbox-7 “Fix &lt;login&gt;” <https://b/t|open>"},
		{func(e *board.Event) { e.Type = board.EventTicketClaimRenewed }, "renewed its claim on inbox-7"},
		{func(e *board.Event) { e.Type = board.EventTicketReleased }, "released inbox-7"},
		{func(e *board.Event) {
			e.Type, e.Author, e.OnBehalfOf, e.Holder = board.EventTicketClaimBroken, "human:bob", "", "ai:claude for human:alice"
		}, "broke ai:claude for human:alice's claim on inbox-7"},
		{func(e *board.Event) { e.Type, e.Relation, e.Other = board.EventTicketRelated, "blocked_by", "inbox-3" }, "linked inbox-7 “Fix &lt;login&gt;” <https://b/t|open>: blocked by inbox-3"},
		{func(e *board.Event) { e.Type, e.Relation, e.Other = board.EventTicketUnrelated, "child_of", "inbox-1" }, "no longer child of inbox-1"},
	} {
		e := base
		c.change(&e)
		got := slackText(FeedEvent{Event: e}, "https://b/t")
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want it to contain %q", e.Type, got, c.want)
		}
		if !slices.Contains(Kinds, e.Type) {
			t.Errorf("%s cannot be named in a subscription's events", e.Type)
		}
	}
}

// TestSlackLinesAddressTheInboxOwner: a delivery of one person's inbox
// speaks to that person, by why the event is in their inbox; activity on
// their tickets reads as on any channel.
func TestSlackLinesAddressTheInboxOwner(t *testing.T) {
	ev := FeedEvent{Event: board.Event{TicketID: "inbox-42", Title: "Pick <a> database", Workspace: "inbox", Author: "ai:claude",
		Type: board.EventTicketMoved, From: "doing", To: "waiting_human", Reason: "two options"}}
	for reason, want := range map[string]string{
		board.InboxWaiting:  "ai:claude needs you on inbox-42: Pick &lt;a&gt; database <https://b/t|open> — two options",
		board.InboxMention:  "ai:claude mentioned you on inbox-42: Pick &lt;a&gt; database <https://b/t|open>",
		board.InboxAssigned: "ai:claude assigned you inbox-42: Pick &lt;a&gt; database <https://b/t|open>",
		board.InboxActivity: "",
	} {
		if got := slackInboxText(ev, reason, "https://b/t"); got != want {
			t.Errorf("%s: %q, want %q", reason, got, want)
		}
	}
	sub := Subscription{Format: FormatSlack, Inbox: "alice"}
	ev.Event.Inbox = []board.InboxAddress{{To: "human:bob", Reason: board.InboxWaiting}, {To: "human:alice", Reason: board.InboxActivity}}
	b, err := body(sub, ev, "https://b")
	if err != nil || !strings.Contains(string(b), "ai:claude moved inbox-42") {
		t.Errorf("activity on alice's ticket reads %s (%v), want the channel's line", b, err)
	}
	ev.Event.Inbox[1].Reason = board.InboxWaiting
	if b, _ := body(sub, ev, "https://b"); !strings.Contains(string(b), "ai:claude needs you on inbox-42") {
		t.Errorf("alice's waiting ticket reads %s", b)
	}
}
