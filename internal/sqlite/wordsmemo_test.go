package sqlite

import (
	"fmt"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The memo answers exactly what board.IndexWords answers, whichever of
// title, body and tags changed since the last call.
func TestWordsMemoAnswersIndexWords(t *testing.T) {
	var m wordsMemo
	texts := []struct{ title, body, tags string }{
		{"Printer jam", "", "[]"},
		{"Printer jam", "", "[]"},
		{"Printer jam", "paper tray two", "[]"},
		{"Printer jam", "paper tray two", `["office"]`},
		{"Printer fire", "paper tray two", `["office"]`},
		{"Printer fire", "", ""},
	}
	for _, x := range texts {
		tk := board.Ticket{Title: x.title, Body: x.body}
		if x.tags == `["office"]` {
			tk.Tags = []string{"office"}
		}
		want := board.IndexWords(tk)
		got := m.of(x.title, x.body, x.tags)
		if fmt.Sprint(got.Title, got.Other) != fmt.Sprint(want.Title, want.Other) {
			t.Errorf("%+v: words %v %v, want %v %v", x, got.Title, got.Other, want.Title, want.Other)
		}
		for _, title := range []string{x.title, "another title"} {
			want := board.IndexWords(board.Ticket{Title: title}).Title
			if got := m.titleOf(title); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("title %q after %+v: %v, want %v", title, x, got, want)
			}
		}
	}
}
