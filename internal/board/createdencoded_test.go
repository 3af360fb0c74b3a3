package board_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A create's first answer carries the JSON its request record stored,
// which is what encoding/json makes of the answer (adapters send it as it
// is); a replay carries none, since it answers replayed: true.
func TestCreatedTicketEncodedIsItsJSON(t *testing.T) {
	svc, _ := newService(t)
	ctx := board.WithPrincipal(context.Background(), board.Principal{Author: "ai:claude", Source: board.SourceMCP})
	for i, title := range []string{"Login fails on Safari", "Safari login fails <again> & \"quoted\""} {
		in := board.CreateTicketInput{RequestID: fmt.Sprintf("enc-%d", i), Workspace: "inbox", NewTicket: board.NewTicket{Title: title, Tags: []string{"web"}}}
		first, err := svc.CreateTicketFindingSimilar(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 && len(first.Similar) != 1 {
			t.Fatalf("similar = %+v, want the first ticket", first.Similar)
		}
		want, err := json.Marshal(&first)
		if err != nil {
			t.Fatal(err)
		}
		if got := first.Encoded(); string(got) != string(want) {
			t.Errorf("first answer's Encoded()\n%s\nwant its JSON\n%s", got, want)
		}
		replay, err := svc.CreateTicketFindingSimilar(ctx, in)
		if err != nil || !replay.Replayed {
			t.Fatalf("replay = %+v, %v", replay, err)
		}
		if got := replay.Encoded(); got != nil {
			t.Errorf("replay's Encoded() = %s, want nil (it is encoded afresh)", got)
		}
	}
}
