package dynamo

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// worstText is n characters of one kind of text that is expensive to
// store: as JSON (control characters, '<' HTML-escaped: 6 bytes each), as
// UTF-8 (4-byte characters), or random across all planes (does not
// compress).
func worstText(kind string, n int, r *rand.Rand) string {
	switch kind {
	case "random":
		var b strings.Builder
		for i := 0; i < n; {
			c := rune(0x10000 + r.IntN(0x10FFFF-0x10000))
			if utf8.ValidRune(c) {
				b.WriteRune(c)
				i++
			}
		}
		return b.String()
	case "control":
		return strings.Repeat("\x01", n)
	case "html":
		return strings.Repeat("<", n)
	case "upper-dotted-i": // grows when lower-cased
		return strings.Repeat("İ", n)
	}
	return strings.Repeat("🎫", n)
}

// worstTicket has every field at its limit, in text of one kind.
func worstTicket(kind string, r *rand.Rand) board.Ticket {
	now := time.Date(2026, 11, 30, 12, 0, 0, 123_000_000, time.UTC)
	links := make([]board.Link, board.MaxLinks)
	for i := range links {
		links[i] = board.Link{Kind: "url", Ref: worstText(kind, board.MaxLinkRef, r), Title: worstText(kind, board.MaxLinkTitle, r)}
	}
	tags := make([]string, board.MaxTags)
	for i := range tags {
		tags[i] = strings.Repeat("t", 30) + string(rune('a'+i/10)) + string(rune('a'+i%10))
	}
	owner, due := "ai:"+strings.Repeat("n", 64), "2026-12-31"
	slug := strings.Repeat("w", 40)
	return board.Ticket{ID: slug + "-999999999999999999", Workspace: slug, Number: 999999999999999999,
		Title: worstText("random", board.MaxTitle, r), Body: worstText(kind, board.MaxBody, r), Status: board.StatusWaitingHuman,
		Priority: board.PriorityUrgent, Owner: &owner, Due: &due, Tags: tags, Links: links, CreatedBy: owner,
		CreatedAt: now, UpdatedAt: now, CompletedAt: &now, URL: "https://board.example/tickets/x", Version: 1 << 40}
}

// worstCreateRecord is the request record of creating t, with the most
// similar tickets a create answers and stores, each at its limits in text
// of kind.
func worstCreateRecord(t *testing.T, tk board.Ticket, kind string, r *rand.Rand) ledger.Record {
	requestID := strings.Repeat("r", ledger.MaxRequestIDLength)
	args, err := ledger.CanonicalArgs(board.CreateTicketInput{
		RequestID: requestID,
		Workspace: tk.Workspace,
		NewTicket: board.NewTicket{
			Title:    tk.Title,
			Body:     tk.Body,
			Priority: tk.Priority,
			Owner:    *tk.Owner,
			Due:      *tk.Due,
			Tags:     tk.Tags,
			Links:    tk.Links,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	similar := make([]board.SimilarTicket, board.MaxSimilar)
	for i := range similar {
		similar[i] = board.SimilarTicket{ID: tk.ID, Title: worstText(kind, board.MaxTitle, r), Status: board.StatusWaitingHuman,
			Owner: tk.Owner, URL: "https://board.example/tickets/" + tk.ID, SharedWords: board.SimilarWords}
	}
	result, err := json.Marshal(board.CreatedTicket{TicketResult: board.TicketResult{RequestID: requestID, Ticket: tk}, Similar: similar})
	if err != nil {
		t.Fatal(err)
	}
	rec := ledger.NewRecord(ledger.Key{Principal: *tk.Owner, RequestID: requestID}, board.ToolCreateTicket, args, tk.CreatedAt, 24*time.Hour)
	rec.Result = result
	return rec
}

// TestWorstCaseItemSizes: the largest items the board's limits allow stay
// under DynamoDB's 400 KB, and read back unchanged.
func TestWorstCaseItemSizes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for _, kind := range []string{"random", "control", "html", "4-byte", "upper-dotted-i"} {
		t.Run(kind, func(t *testing.T) {
			tk := worstTicket(kind, r)
			rec := worstCreateRecord(t, tk, kind, r)
			main, part, err := recordItems(rec, newTxID())
			if err != nil {
				t.Fatal(err)
			}
			ticket, err := ticketItem(tk)
			if err != nil {
				t.Fatal(err)
			}
			note, err := noteItem(board.Note{ID: "0190f3a1-7c2e-7000-8000-000000000000", TicketID: tk.ID,
				Body: worstText(kind, board.MaxNoteBody, r), Author: *tk.Owner, Source: board.SourceMCP, CreatedAt: tk.CreatedAt})
			if err != nil {
				t.Fatal(err)
			}
			sizes := map[string]int{"request record": itemSize(main), "ticket": itemSize(ticket), "note": itemSize(note)}
			if part != nil {
				sizes["request record result part"] = itemSize(part)
			}
			for what, n := range sizes {
				t.Logf("%s: %d bytes (%.0f%% of the limit)", what, n, 100*float64(n)/maxItemBytes)
				if n > maxItemBytes {
					t.Errorf("%s item is %d bytes, over %d", what, n, maxItemBytes)
				}
			}
			got, err := decodeTicket(ticket)
			if err != nil || got.Body != tk.Body || len(got.Links) != len(tk.Links) || got.Links[19] != tk.Links[19] {
				t.Errorf("ticket does not read back (%v)", err)
			}
		})
	}
}
