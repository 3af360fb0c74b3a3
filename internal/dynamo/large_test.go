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
			in := board.CreateTicketInput{
				RequestID: strings.Repeat("x", ledger.MaxRequestIDLength),
				Workspace: "inbox",
				NewTicket: board.NewTicket{Title: randomText(r, board.MaxTitle), Body: body, Links: links},
			}
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

// han is n different Han characters from the start of the block, from i on.
func han(from, n int) string {
	r := make([]rune, n)
	for i := range r {
		r[i] = rune(0x4E00 + from + i)
	}
	return string(r)
}

// TestLongJapaneseTicket: a ticket whose title and body are runs of
// different Han characters at their limits has more index items than one
// transaction takes (199 title pairs, MaxOtherWords body pairs): it is
// written, its title pairs and its body's first MaxOtherWords pairs are
// found at once, the rest of the body is not, and an edit of the body
// takes the old pairs away.
func TestLongJapaneseTicket(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			svc := newService(t, openStore(t, ep.newEndpoint(t), nil, dynamo.Config{SerializeWrites: ep.name == "moto"}))
			ctx := aiCtx(t)
			title, body := han(0, board.MaxTitle), han(board.MaxTitle, 5000)
			body = strings.Repeat(body, board.MaxBody/5000)
			created, err := svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: "long", Workspace: "inbox", NewTicket: board.NewTicket{Title: title, Body: body}})
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			found := func(q string) bool {
				t.Helper()
				list, err := svc.ListTickets(ctx, board.ListTicketsInput{Workspace: "inbox", Query: q})
				if err != nil {
					t.Fatalf("query %q: %v", q, err)
				}
				return len(list.Tickets) == 1 && list.Tickets[0].ID == created.Ticket.ID
			}
			pair := func(s string, i int) string { return string([]rune(s)[i : i+2]) }
			for _, q := range []string{pair(title, 0), pair(title, board.MaxTitle-2), pair(body, 0), pair(body, board.MaxOtherWords-1)} {
				if !found(q) {
					t.Errorf("%q (indexed) is not found", q)
				}
			}
			if found(pair(body, board.MaxOtherWords)) || found(pair(body, 4000)) {
				t.Error("a pair past the body's first MaxOtherWords is found")
			}
			newBody := "短い本文"
			if _, err := svc.UpdateTicket(ctx, board.UpdateTicketInput{RequestID: "edit", ID: created.Ticket.ID, Body: &newBody}); err != nil {
				t.Fatalf("update: %v", err)
			}
			if found(pair(body, 0)) || found(pair(body, board.MaxOtherWords-1)) || !found("本文") {
				t.Error("after the edit: the old body's pairs are found, or the new one's are not")
			}
		})
	}
}
