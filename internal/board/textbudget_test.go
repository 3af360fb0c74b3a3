package board

import (
	"strings"
	"testing"
)

// TestTextBudget: the first ticket is always taken, even over the bound;
// after it, a ticket that would bring the text over Max is refused (and
// nothing after the refusal is counted); Max 0 takes everything.
func TestTextBudget(t *testing.T) {
	ticket := func(n int) Ticket { return Ticket{Title: strings.Repeat("x", n)} }
	big := TextBudget{Max: 10}
	if !big.Take(ticket(50)) {
		t.Fatal("the first ticket must be taken even when it alone is over Max")
	}
	if big.Take(ticket(1)) {
		t.Fatal("a ticket after the bound was passed must be refused")
	}
	b := TextBudget{Max: ticket(4).TextBytes() * 2}
	if !b.Take(ticket(4)) || !b.Take(ticket(4)) {
		t.Fatal("two tickets that fit exactly must both be taken")
	}
	if b.Take(ticket(1)) {
		t.Fatal("a ticket past an exactly full budget must be refused")
	}
	var unbounded TextBudget
	for range 100 {
		if !unbounded.Take(ticket(1000)) {
			t.Fatal("Max 0 must take every ticket")
		}
	}
}
