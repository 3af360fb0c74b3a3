package storetest

import (
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// testSecretAcrossInstances: instances that share nothing in memory race to
// make the same secret; the backend keeps one.
func testSecretAcrossInstances(t *testing.T, open Instances) {
	stores := make([]Store, 4)
	for i := range stores {
		stores[i] = open(t)
	}
	raceSecrets(t, func(i int, candidate []byte) ([]byte, error) {
		return stores[i%len(stores)].ServerSecret(t.Context(), "raced", candidate)
	})
}

// testCursorAcrossInstances: cursors are sealed with the key in the store,
// so any instance continues a list another one began (as Lambda instances
// behind one URL do), and none takes an altered cursor.
func testCursorAcrossInstances(t *testing.T, open Instances) {
	svcs := services(t, open, 2)
	ctx := racerCtx(t)
	for _, id := range []string{"one", "two", "three"} {
		if _, err := svcs[0].CreateTicket(ctx, board.CreateTicketInput{RequestID: "cursor-" + id, Workspace: "inbox", NewTicket: board.NewTicket{Title: id}}); err != nil {
			t.Fatal(err)
		}
	}
	first, err := svcs[0].ListTickets(ctx, board.ListTicketsInput{Workspace: "inbox", Limit: 1})
	if err != nil || first.NextCursor == nil {
		t.Fatalf("first page: %+v, %v", first, err)
	}
	second, err := svcs[1].ListTickets(ctx, board.ListTicketsInput{Workspace: "inbox", Limit: 1, Cursor: *first.NextCursor})
	if err != nil || len(second.Tickets) != 1 || second.Tickets[0].Title != "two" {
		t.Fatalf("the second page on another instance: %+v, %v; want ticket two", second, err)
	}
	c := []byte(*first.NextCursor) // the tag's first character follows the last dot
	i := strings.LastIndexByte(string(c), '.') + 1
	c[i] = map[bool]byte{true: 'B', false: 'A'}[c[i] == 'A']
	altered := string(c)
	_, err = svcs[1].ListTickets(ctx, board.ListTicketsInput{Workspace: "inbox", Limit: 1, Cursor: altered})
	if e, ok := err.(*board.Error); !ok || e.Code != board.CodeInvalid {
		t.Errorf("an altered cursor: %v; want invalid", err)
	}
}
