package board

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestWordsFoldAndSplit(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"Fix the LOGIN page!", []string{"fix", "the", "login", "page"}},
		{"snake_case, kebab-case; 50% [x]", []string{"snake", "case", "kebab", "case", "50", "x"}},
		{"Straße STRASSE ẞ", []string{"strasse", "strasse", "ss"}},
		{"ΟΔΥΣΣΕΥΣ οδυσσευς", []string{"οδυσσευσ", "οδυσσευσ"}},
		{"ﬁnal ÉCOLE", []string{"final", "école"}},
		{"日本語テキスト 🎫 v2.0", []string{"日本", "本語", "語テ", "テキ", "キス", "スト", "v2", "0"}},
		{"e\u0301t\u00e9", []string{"e\u0301té"}}, // combining marks stay in the word
		{"  ", nil},
	} {
		if got := Words(c.text); !slices.Equal(got, c.want) {
			t.Errorf("Words(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	long := strings.Repeat("ab", MaxWordRunes)
	if got := Words(long + " x"); len(got) != 2 || got[0] != long[:MaxWordRunes] {
		t.Errorf("a word of %d runes: %q, want it cut to %d", 2*MaxWordRunes, got, MaxWordRunes)
	}
	if got := Words(strings.Repeat("ß", MaxWordRunes)); len([]rune(got[0])) != MaxWordRunes {
		t.Errorf("a word of ß cut to %d runes, want %d", len([]rune(got[0])), MaxWordRunes)
	}
	if Fold("STRAẞE") != "strasse" {
		t.Errorf("Fold(STRAẞE) = %q", Fold("STRAẞE"))
	}
}

func TestParseSearch(t *testing.T) {
	for _, c := range []struct {
		q      string
		words  []string
		prefix string
	}{
		{"login", nil, "login"},
		{"login ", []string{"login"}, ""},
		{"broken LOG", []string{"broken"}, "log"},
		{"broken login.", []string{"broken", "login"}, ""},
		{"a", []string{"a"}, ""}, // shorter than MinPrefix: whole
		{"fix fix fi", []string{"fix"}, "fi"},
	} {
		s, err := ParseSearch(c.q)
		if err != nil || !slices.Equal(s.Words, c.words) || s.Prefix != c.prefix {
			t.Errorf("ParseSearch(%q) = %q + prefix %q (%v), want %q + %q", c.q, s.Words, s.Prefix, err, c.words, c.prefix)
		}
	}
	var many strings.Builder
	for i := range MaxSearchWords + 1 {
		fmt.Fprintf(&many, "w%d ", i)
	}
	for _, q := range []string{"", "   ", "%%% -- ?", many.String()} {
		var e *Error
		if _, err := ParseSearch(q); err == nil || !asError(err, &e) || e.Code != CodeInvalid {
			t.Errorf("ParseSearch(%q): %v, want an invalid error", q, err)
		}
	}
}

func asError(err error, e **Error) bool {
	x, ok := err.(*Error)
	*e = x
	return ok
}

func TestIndexWordsAndTiers(t *testing.T) {
	tk := Ticket{Title: "Deploy the API", Body: "deploy notes for the api team", Tags: []string{"ops", "q3-report"}}
	w := IndexWords(tk)
	if !slices.Equal(w.Title, []string{"deploy", "the", "api"}) || !slices.Equal(w.Other, []string{"ops", "q3", "report", "notes", "for", "team"}) {
		t.Fatalf("IndexWords = %+v", w)
	}
	for _, c := range []struct {
		q    string
		tier int
		ok   bool
	}{
		{"deploy ", 0, true}, {"dep", 0, true}, {"deploy api", 0, true},
		{"deploy team ", 1, true}, {"rep", 1, true}, {"ops ", 1, true},
		{"deploy missing ", 0, false}, {"zz", 0, false},
	} {
		s, _ := ParseSearch(c.q)
		if tier, ok := s.Tier(w); tier != c.tier || ok != c.ok {
			t.Errorf("%q: tier %d ok %v, want %d %v", c.q, tier, ok, c.tier, c.ok)
		}
	}
	var body strings.Builder
	for i := range MaxOtherWords + 10 {
		fmt.Fprintf(&body, "w%d ", i)
	}
	w = IndexWords(Ticket{Title: "t", Body: body.String()})
	if len(w.Other) != MaxOtherWords || w.Other[MaxOtherWords-1] != fmt.Sprintf("w%d", MaxOtherWords-1) {
		t.Errorf("a body of %d distinct words indexes %d, want the first %d", MaxOtherWords+10, len(w.Other), MaxOtherWords)
	}
}

func TestSearchCursor(t *testing.T) {
	q := TicketQuery{Workspace: "inbox", Query: "deploy"}
	before, tier, err := decodeCursor(testSeal, encodeCursor(testSeal, 17, 1, q), q)
	if err != nil || before != 17 || tier != 1 {
		t.Fatalf("round trip: %d %d %v", before, tier, err)
	}
	// A sealed query cursor without a version (as the earlier substring
	// search made them): refused, saying to start over.
	raw, _ := json.Marshal(map[string]any{"b": 17, "f": filterHash(q)})
	if _, _, err := decodeCursor(testSeal, testSeal.seal(cursorTickets, json.RawMessage(raw)), q); err == nil || !strings.Contains(err.Error(), "earlier version of search") {
		t.Errorf("an old query cursor: %v", err)
	}
	// Cursors without a query carry no version.
	plain := TicketQuery{Workspace: "inbox", Tag: "x"}
	raw, _ = json.Marshal(map[string]any{"b": 17, "f": filterHash(plain)})
	if before, _, err := decodeCursor(testSeal, testSeal.seal(cursorTickets, json.RawMessage(raw)), plain); err != nil || before != 17 {
		t.Errorf("an old cursor without a query: %d %v", before, err)
	}
	raw, _ = json.Marshal(map[string]any{"b": 17, "t": 5, "v": 2, "f": filterHash(q)})
	if _, _, err := decodeCursor(testSeal, testSeal.seal(cursorTickets, json.RawMessage(raw)), q); err == nil {
		t.Error("a cursor with tier 5 was accepted")
	}
}

// Fit cutting a search page keeps the tier of the last ticket kept.
func TestFitKeepsTheSearchTier(t *testing.T) {
	q := TicketQuery{Workspace: "inbox", Query: "deploy", Limit: 10}
	l := TicketList{query: q, seal: testSeal}
	for n := int64(10); n >= 1; n-- {
		title := "deploy"
		if n <= 8 {
			title = "other"
		}
		l.Tickets = append(l.Tickets, Ticket{ID: fmt.Sprintf("inbox-%d", n), Workspace: "inbox", Number: n, Title: title,
			Body: "deploy " + strings.Repeat("b", 1000)})
	}
	if !l.Fit(jsonSize, 4200) || l.NextCursor == nil { // room for three of the ten tickets
		t.Fatal("Fit did not cut")
	}
	last := l.Tickets[len(l.Tickets)-1]
	before, tier, err := decodeCursor(testSeal, *l.NextCursor, q)
	if err != nil || before != last.Number || tier != 1 {
		t.Errorf("next_cursor after %s: below %d in tier %d (%v), want below %d in tier 1", last.ID, before, tier, err, last.Number)
	}
}
