package web

import (
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The history says what claims did, and whose claim a person ended.
func TestClaimEventText(t *testing.T) {
	for _, c := range []struct {
		e    board.Event
		want string
	}{
		{board.Event{Type: board.EventTicketClaimed}, "claimed it"},
		{board.Event{Type: board.EventTicketClaimRenewed}, "renewed their claim"},
		{board.Event{Type: board.EventTicketReleased}, "released it"},
		{board.Event{Type: board.EventTicketReleased, From: "doing", To: "done"}, "released it and moved it from " + statusLabels[board.StatusDoing] + " to " + statusLabels[board.StatusDone]},
		{board.Event{Type: board.EventTicketClaimBroken, Holder: "ai:claude for human:alice"}, "broke the claim of ai:claude for human:alice"},
		{board.Event{Type: board.EventTicketMoved, From: "candidate", To: "doing", Holder: "ai:claude"},
			"moved it from " + statusLabels[board.StatusCandidate] + " to " + statusLabels[board.StatusDoing] + ", ending the claim of ai:claude"},
	} {
		if got := eventText(c.e); got != c.want {
			t.Errorf("%s: %q, want %q", c.e.Type, got, c.want)
		}
	}
}
