package board_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A list filtered by nothing but status says how many tickets match, from
// the counts the workspace keeps; any other filter would need a count of
// its own, so the answer has no total at all rather than a wrong one.
func TestListTotalOnlyWhereCountsAnswerIt(t *testing.T) {
	svc, _ := newService(t)
	ctx := board.WithPrincipal(context.Background(), board.Principal{Author: "ai:claude", Source: board.SourceMCP})
	for i := range 5 {
		in := board.CreateTicketInput{RequestID: fmt.Sprintf("c%d", i), Workspace: "inbox", NewTicket: board.NewTicket{Title: fmt.Sprintf("ticket %d", i), Tags: []string{"t"}}}
		if _, err := svc.CreateTicket(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.MoveTicket(ctx, board.MoveTicketInput{RequestID: "m", ID: "inbox-2", Status: board.StatusDone}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		in   board.ListTicketsInput
		want int // -1: no total
	}{
		{board.ListTicketsInput{Workspace: "inbox", Limit: 2}, 5},
		{board.ListTicketsInput{Workspace: "inbox", Status: board.StatusDone, Limit: 1}, 1},
		{board.ListTicketsInput{Workspace: "inbox", Status: board.StatusWaitingAI}, 0},
		{board.ListTicketsInput{Workspace: "inbox", Tag: "t"}, -1},
		{board.ListTicketsInput{Workspace: "inbox", Owner: "human"}, -1},
		{board.ListTicketsInput{Workspace: "inbox", Query: "ticket"}, -1},
	}
	for _, c := range cases {
		list, err := svc.ListTickets(ctx, c.in)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(list)
		switch {
		case c.want < 0 && (list.Total != nil || strings.Contains(string(raw), `"total"`)):
			t.Errorf("ListTickets(%+v) says total %s; a filtered list has none", c.in, raw)
		case c.want >= 0 && (list.Total == nil || *list.Total != c.want || !strings.Contains(string(raw), fmt.Sprintf(`"total":%d`, c.want))):
			t.Errorf("ListTickets(%+v) = %s, want total %d", c.in, raw, c.want)
		}
	}
	// The next page's total is the same whole.
	first, _ := svc.ListTickets(ctx, board.ListTicketsInput{Workspace: "inbox", Limit: 2})
	next, err := svc.ListTickets(ctx, board.ListTicketsInput{Workspace: "inbox", Limit: 2, Cursor: *first.NextCursor})
	if err != nil || next.Total == nil || *next.Total != 5 {
		t.Errorf("the second page's total = %v (%v), want 5", next.Total, err)
	}
}
