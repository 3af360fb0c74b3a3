package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Values at the limits (docs/architecture.md, "Data") round-trip unchanged.

func largeValueTests() []contractTest {
	return []contractTest{
		{"a ticket at every limit round-trips", testLargeTicket},
	}
}

// runes repeats pattern and cuts the result to exactly n runes.
func runes(pattern string, n int) string {
	r := []rune(strings.Repeat(pattern, n/utf8.RuneCountInString(pattern)+1))
	return string(r[:n])
}

func testLargeTicket(t *testing.T, f *fixture) {
	// Multi-byte text of 1, 2, 3 and 4 bytes per rune, with a word to find
	// at the very end of the body.
	const tail = " ENDMARKER"
	body := runes("Grüße aus Köln — 日本語テキスト 🎫🚀 Ärger\n", board.MaxBody-len(tail)) + tail
	if n := utf8.RuneCountInString(body); n != board.MaxBody {
		t.Fatalf("suite bug: body has %d runes", n)
	}
	title := runes("Ü€🎫 title ", board.MaxTitle)
	tags := make([]string, board.MaxTags)
	for i := range tags {
		tags[i] = fmt.Sprintf("tag-%02d-%s", i, strings.Repeat("x", 32-7))
	}
	links := make([]board.Link, board.MaxLinks)
	for i := range links {
		switch i % 3 {
		case 0:
			links[i] = board.Link{Kind: "url", Ref: "https://example.com/" + strings.Repeat("p", board.MaxLinkRef-20-4) + fmt.Sprintf("?i=%d", i%10),
				Title: runes(fmt.Sprintf("Link %d — ß🔗 ", i), board.MaxLinkTitle)}
		case 1:
			links[i] = board.Link{Kind: "article", Ref: runes(fmt.Sprintf("art-%d-Ä", i), board.MaxLinkRef)}
		default:
			links[i] = board.Link{Kind: "task", Ref: fmt.Sprintf("task-%d", i), Title: "Task \"quoted\" <b>&</b>"}
		}
	}
	plan := f.create("inbox", "big", withTitle(title), withBody(body), withTags(tags...), withLinks(links...),
		withOwner("ai:"+strings.Repeat("n", 64)), withDue("2026-12-31"))

	d, _ := f.detail(plan.Ticket.ID)
	assertTicket(t, "large ticket", plan.Ticket, d.Ticket)
	if d.Ticket.Body != body {
		t.Errorf("body came back with %d runes / %d bytes, want %d / %d", utf8.RuneCountInString(d.Ticket.Body), len(d.Ticket.Body), board.MaxBody, len(body))
	}
	rec := f.request(key(alice, "big"), f.now())
	if !slices.Equal(rec.Result, plan.Result) {
		t.Errorf("stored result has %d bytes, want the %d bytes built", len(rec.Result), len(plan.Result))
	}
	assertTickets(t, "ListTickets of the large ticket", []board.Ticket{plan.Ticket}, f.list(everything("inbox")).Tickets)

	// Search and tag filters reach the far end of the values.
	for _, q := range []string{"endmarker", "日本語", "🎫 ärger köln "} {
		got, _ := f.listIDs(board.TicketQuery{Workspace: "inbox", Query: q, Limit: 10})
		if !slices.Equal(got, []string{plan.Ticket.ID}) {
			t.Errorf("query %q in the large ticket: got %v", q, got)
		}
	}
	got, _ := f.listIDs(board.TicketQuery{Workspace: "inbox", Tag: tags[len(tags)-1], Limit: 10})
	if !slices.Equal(got, []string{plan.Ticket.ID}) {
		t.Errorf("the 20th tag does not find the ticket: got %v", got)
	}

	// A note at its limit, through SaveTicket.
	noteBody := runes("Notiz 📝 — ", board.MaxNoteBody)
	note := f.noteTx(d.Ticket, "big-note", noteBody)
	f.save(note)
	d, _ = f.detail(plan.Ticket.ID)
	assertNotes(t, "large note", []board.Note{*note.Note}, d.Notes)
	assertTicket(t, "large ticket after the note", *note.After, d.Ticket)
}
