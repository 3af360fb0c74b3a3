package dynamo

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A write's transaction takes title and tag words first, then deletions,
// then body words, as many as fit; told how many it took, diffWords splits
// the same change the same way, so the stream consumer writes exactly the
// rest and no item twice.
func TestWordSplitIsReproducible(t *testing.T) {
	var body, body2 strings.Builder
	for i := range 120 {
		fmt.Fprintf(&body, "alpha%d ", i)
		fmt.Fprintf(&body2, "beta%d ", i)
	}
	before := board.Ticket{Workspace: "inbox", Number: 7, Title: "Printer jam", Body: body.String(), Tags: []string{"ops"}}
	after := before
	after.Title, after.Body, after.Tags = "Printer fixed", body2.String(), []string{"ops", "hardware-q3"}
	for _, room := range []int{0, 1, 3, 50, 95, 400} {
		tx := diffWords(&before, after, room)
		done := len(tx.nowPut) + len(tx.nowClear)
		if room >= 4 && (!slices.Contains(tx.nowPut, wordEntry{"fixed", 0}) || !slices.Contains(tx.nowPut, wordEntry{"q3", 1})) {
			t.Errorf("room %d: the title and tag words are not the first in the transaction: %v", room, tx.nowPut[:min(4, len(tx.nowPut))])
		}
		later := diffWords(&before, after, done)
		if !slices.Equal(later.laterPut, tx.laterPut) || !slices.Equal(later.laterClear, tx.laterClear) {
			t.Errorf("room %d: the consumer's split differs from the transaction's", room)
		}
		all := diffWords(&before, after, 0)
		if got, want := len(tx.nowPut)+len(tx.laterPut), len(all.laterPut); got != want {
			t.Errorf("room %d: %d puts in all, want %d", room, got, want)
		}
		if got, want := len(tx.nowClear)+len(tx.laterClear), len(all.laterClear); got != want {
			t.Errorf("room %d: %d deletions in all, want %d", room, got, want)
		}
	}
}

func TestWordKeysRoundTrip(t *testing.T) {
	for _, n := range []int64{1, 42, 1 << 40, 9_223_372_036_854_775_807} {
		k := wordKey("inbox", n, wordEntry{"straße", 1})
		if pk := getS(k, attrPK); pk != "S#inbox#st" {
			t.Errorf("pk %q", pk)
		}
		word, tier, got, err := parseWordSK(getS(k, attrSK))
		if err != nil || word != "straße" || tier != 1 || got != n {
			t.Errorf("%d: parsed %q %d %d %v", n, word, tier, got, err)
		}
	}
	// Newer tickets sort first within a word and tier.
	if a, b := getS(wordKey("w", 10, wordEntry{"go", 0}), attrSK), getS(wordKey("w", 9, wordEntry{"go", 0}), attrSK); a >= b {
		t.Errorf("ticket 10's key %q does not sort before 9's %q", a, b)
	}
	if _, _, _, err := parseWordSK("go#2x"); err == nil {
		t.Error("a malformed sort key parsed")
	}
}

// A ticket's index items are bounded whatever its body's length: its
// title's words and the first MaxOtherWords others. A write's transaction
// takes the title's first, as many as fit, and leaves the rest for later.
func TestLongJapaneseTicketItems(t *testing.T) {
	run := func(from, n int) string {
		r := make([]rune, n)
		for i := range r {
			r[i] = rune(0x4E00 + from + i)
		}
		return string(r)
	}
	tk := board.Ticket{Workspace: "inbox", Number: 1, Title: run(0, board.MaxTitle), Body: strings.Repeat(run(board.MaxTitle, 5000), 4)}
	entries, _ := ticketWordEntries(&tk)
	if want := board.MaxTitle - 1 + board.MaxOtherWords; len(entries) != want {
		t.Errorf("%d index items, want %d (the title's pairs and MaxOtherWords of the body)", len(entries), want)
	}
	const room = maxTransactItems - 10 // what a write's own items leave, about
	c := diffWords(nil, tk, room)
	if len(c.nowPut) != room || len(c.nowPut)+len(c.laterPut) != len(entries) {
		t.Errorf("the transaction takes %d items, %d later; want %d now and the rest later", len(c.nowPut), len(c.laterPut), room)
	}
	for _, e := range c.nowPut {
		if e.tier != 0 {
			t.Fatalf("the transaction carries %v before the title's pairs are all in", e)
		}
	}
}

// The earlier index's items of a ticket's runs are the ones reindexing
// deletes: a run (or letters with a run) as one word; never a word the
// index still makes (Latin words, a run of exactly two characters).
func TestEarlierRunEntries(t *testing.T) {
	tk := board.Ticket{Title: "Claude Code から追加: LED点滅の記事案", Body: "ブログ記事 記事 plain words", Tags: []string{"インフラ"}}
	got := earlierRunEntries(tk)
	want := []wordEntry{{"から追加", 0}, {"led点滅の記事案", 0}, {"インフラ", 1}, {"ブログ記事", 1}}
	if !slices.Equal(got, want) {
		t.Errorf("earlierRunEntries = %v, want %v", got, want)
	}
}
