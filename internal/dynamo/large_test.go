package dynamo_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// randomText is n random characters from the supplementary planes: 4 bytes
// of UTF-8 each, and nearly incompressible.
func randomText(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; {
		if c := rune(0x10000 + r.IntN(0x100000)); utf8.ValidRune(c) {
			b.WriteRune(c)
			i++
		}
	}
	return b.String()
}

// TestLargestCreate: a create with every field at its limit in text that
// neither escapes nor compresses well is stored (its result in a part
// item beside the record), replayed, found and listed unchanged.
func TestLargestCreate(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			svc := newService(t, openStore(t, ep.newEndpoint(t), nil, dynamo.Config{}))
			ctx := aiCtx(t)
			r := rand.New(rand.NewPCG(3, 5))
			links := make([]board.Link, board.MaxLinks)
			for i := range links {
				links[i] = board.Link{Kind: "article", Ref: randomText(r, board.MaxLinkRef), Title: randomText(r, board.MaxLinkTitle)}
			}
			body := randomText(r, board.MaxBody-3) + "END"
			in := board.CreateTicketInput{RequestID: strings.Repeat("x", ledger.MaxRequestIDLength), Workspace: "inbox",
				Title: randomText(r, board.MaxTitle), Body: body, Links: links}
			first, err := svc.CreateTicket(ctx, in)
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			again, err := svc.CreateTicket(ctx, in)
			if err != nil || !again.Replayed || again.Ticket.Body != body || again.Ticket.Links[19] != links[19] {
				t.Fatalf("replay of the largest create: replayed=%v err=%v", again.Replayed, err)
			}
			found, err := svc.FindRequest(ctx, board.FindRequestInput{RequestID: in.RequestID})
			if err != nil || found.Status != ledger.LookupDone || len(found.Result) < 250_000 {
				t.Fatalf("find_request: %s, %d bytes of result, %v", found.Status, len(found.Result), err)
			}
			d, err := svc.GetTicket(ctx, board.TicketIDInput{ID: first.Ticket.ID})
			if err != nil || d.Ticket.Body != body || d.Ticket.Title != in.Title {
				t.Fatalf("get_ticket: %v", err)
			}
			word := board.Words(body)[0]
			list, err := svc.ListTickets(ctx, board.ListTicketsInput{Workspace: "inbox", Query: word + " "})
			if err != nil || len(list.Tickets) != 1 || list.Tickets[0].Body != body {
				t.Fatalf("list_tickets query=%q (the body's first word): %d tickets, %v", word, len(list.Tickets), err)
			}
			title := randomText(r, board.MaxTitle)
			up, err := svc.UpdateTicket(ctx, board.UpdateTicketInput{RequestID: "u", ID: first.Ticket.ID, Title: &title, Body: &body})
			if err != nil || up.Ticket.Title != title {
				t.Fatalf("update of the largest ticket: %v", err)
			}
		})
	}
}
