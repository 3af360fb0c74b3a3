package board

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The search language, the same on every store: a query is words. A word
// is a maximal run of Unicode letters, digits and combining marks, outside
// the scripts written without spaces, whose runs are pairs of characters
// instead (cjk.go); words are compared case-folded (Fold). A ticket
// matches when every word of the query is one of its words (title, body
// or tags); the last word of a query that does not end in a space (or
// other separator) is a prefix: it matches any word that begins with it,
// for type-ahead. A prefix needs MinPrefix runes; a shorter last word is
// matched whole.
//
// Results are ranked in two tiers, newest (highest number) first within
// each: tier 0 when every query word (and the prefix) is found in the
// title, tier 1 otherwise.
const (
	// MinPrefix is the shortest last word treated as a prefix.
	MinPrefix = 2
	// MaxWordRunes cuts longer words, in tickets and queries alike, so a
	// word always fits an index key.
	MaxWordRunes = 40
	// MaxSearchWords bounds the words of one query.
	MaxSearchWords = 10
	// MaxOtherWords bounds the distinct words of a ticket's body and tags
	// that are indexed (those of its title are always indexed): the first
	// ones, tags first, then the body in order. A word past it is not
	// found, on any store. Each distinct pair of a CJK run counts as one,
	// so of a long Japanese body at least the first 1 000 characters are
	// indexed, and more where pairs repeat.
	MaxOtherWords = 1000
)

// Search is a parsed query: whole words, and the prefix (empty when the
// query ended with a separator or its last word is shorter than MinPrefix).
type Search struct {
	Words  []string
	Prefix string
	// Runs are the query's CJK runs of three or more characters: their
	// pairs are among Words (what an index looks up), and a ticket matches
	// only where a run is written whole, its pairs adjacent (Tier).
	Runs []string
}

// Terms is how many terms the search has (words and prefix).
func (s Search) Terms() int {
	n := len(s.Words)
	if s.Prefix != "" {
		n++
	}
	return n
}

// ParseSearch parses a query; an error names what to change. A CJK run
// (cjk.go) is its pairs, whole words, never a prefix; a run of one
// character is refused.
func ParseSearch(q string) (Search, error) {
	toks := tokens(q)
	if len(toks) == 0 {
		return Search{}, invalid("query %q has no words to search for: give whole words of letters or digits (punctuation separates words)", clip(q))
	}
	pairs := false
	for _, t := range toks {
		if t.cjk && len(t.words) == 0 {
			return Search{}, invalid("%q is one character of Japanese, Chinese or Korean text, which search cannot find alone: give at least two adjacent characters (as in 記事 or 点滅)", t.text)
		}
		pairs = pairs || t.cjk && len(t.words) > 1
	}
	var s Search
	last := toks[len(toks)-1]
	lastRune, _ := utf8.DecodeLastRuneInString(q)
	if !last.cjk && isWordRune(lastRune) && utf8.RuneCountInString(last.words[0]) >= MinPrefix {
		s.Prefix, toks = last.words[0], toks[:len(toks)-1]
	}
	for _, t := range toks {
		for _, w := range t.words {
			if !slices.Contains(s.Words, w) {
				s.Words = append(s.Words, w)
			}
		}
		if len(t.words) > 1 && !slices.Contains(s.Runs, t.text) {
			s.Runs = append(s.Runs, t.text)
		}
	}
	if s.Terms() > MaxSearchWords {
		if pairs {
			return Search{}, invalid("query has %d words (Japanese, Chinese and Korean text counts each pair of adjacent characters); the limit is %d: search for a shorter part", s.Terms(), MaxSearchWords)
		}
		return Search{}, invalid("query has %d words; the limit is %d", s.Terms(), MaxSearchWords)
	}
	return s, nil
}

// isWordRune is what words are made of.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }

// Words splits text into folded words, in order, repeats included: each
// word of letters and digits cut to MaxWordRunes, and each run of CJK
// characters (cjk.go) as its overlapping pairs.
func Words(text string) []string {
	var out []string
	scanTokens(text, func(w string) { out = append(out, w) }, func(chars []string) {
		for i := 0; i+1 < len(chars); i++ {
			out = append(out, chars[i]+chars[i+1])
		}
	})
	return out
}

// Fold folds a word for comparison: simple Unicode case folding (every
// rune to the lower case of its upper case, so σ, ς and Σ are one), with
// the full foldings that expand a rune written out (ß and ẞ to ss, the
// Latin ligatures ﬀ … ﬆ). The same function serves every store, so both
// see exactly the same words.
func Fold(word string) string {
	var b strings.Builder
	for _, r := range word {
		foldRune(&b, r, utf8.RuneCountInString(word)*3)
	}
	return b.String()
}

// expansions are full case foldings that do not fold to one rune.
var expansions = map[rune]string{
	'ß': "ss", 'ẞ': "ss",
	'ﬀ': "ff", 'ﬁ': "fi", 'ﬂ': "fl", 'ﬃ': "ffi", 'ﬄ': "ffl", 'ﬅ': "st", 'ﬆ': "st",
}

// foldRune writes r folded (at most room runes of it) and says how many
// runes it wrote.
func foldRune(b *strings.Builder, r rune, room int) int {
	if e, ok := expansions[r]; ok {
		e = e[:min(len(e), room)] // ASCII: bytes are runes
		b.WriteString(e)
		return len(e)
	}
	b.WriteRune(unicode.ToLower(unicode.ToUpper(r)))
	return 1
}

// TicketWords are the distinct words a ticket is found by: those of its
// title, and the others (tags, then body) that are not in the title, at
// most MaxOtherWords of them.
type TicketWords struct {
	Title []string
	Other []string
	// title and others (tags, body) are the ticket's text, where a
	// search's runs are looked for.
	title  string
	others []string
}

// IndexWords is the words of t, as every store indexes and checks them.
func IndexWords(t Ticket) TicketWords {
	w := TicketWords{title: t.Title, others: append(slices.Clone(t.Tags), t.Body)}
	seen := map[string]bool{}
	for _, x := range Words(t.Title) {
		if !seen[x] {
			seen[x] = true
			w.Title = append(w.Title, x)
		}
	}
	add := func(text string) {
		for _, x := range Words(text) {
			if len(w.Other) == MaxOtherWords {
				return
			}
			if !seen[x] {
				seen[x] = true
				w.Other = append(w.Other, x)
			}
		}
	}
	for _, tag := range t.Tags {
		add(tag)
	}
	add(t.Body)
	return w
}

// Tier says whether words match the search and in which tier: 0 when every
// term is in the title, 1 when every term is in the ticket but not all in
// the title. A run is in the title when the title has it written whole,
// else in the ticket when a tag or the body has.
func (s Search) Tier(w TicketWords) (tier int, ok bool) {
	inTitle := true
	for _, run := range s.Runs {
		switch {
		case strings.Contains(w.title, run):
		case slices.ContainsFunc(w.others, func(text string) bool { return strings.Contains(text, run) }):
			inTitle = false
		default:
			return 0, false
		}
	}
	for _, x := range s.Words {
		switch {
		case slices.Contains(w.Title, x):
		case slices.Contains(w.Other, x):
			inTitle = false
		default:
			return 0, false
		}
	}
	if s.Prefix != "" {
		hasPrefix := func(x string) bool { return strings.HasPrefix(x, s.Prefix) }
		switch {
		case slices.ContainsFunc(w.Title, hasPrefix):
		case slices.ContainsFunc(w.Other, hasPrefix):
			inTitle = false
		default:
			return 0, false
		}
	}
	if inTitle {
		return 0, true
	}
	return 1, true
}

// SearchTiers is the number of tiers a search ranks by.
const SearchTiers = 2

// Matches checks a ticket against every filter of q (status, owner, tag and
// the search), as an index that only yields candidates must: tier is the
// search's tier (0 without a query).
func (q TicketQuery) Matches(t Ticket, s *Search) (tier int, ok bool) {
	switch {
	case q.Status != "" && t.Status != q.Status,
		q.Owner != "" && (t.Owner == nil || *t.Owner != q.Owner),
		q.Tag != "" && !slices.Contains(t.Tags, q.Tag),
		q.Claimed != nil && *q.Claimed != t.Claim.LiveAt(q.Now),
		q.Ready && (!IsOpenStatus(t.Status) || t.OpenBlockers > 0):
		return 0, false
	}
	if s == nil {
		return 0, true
	}
	return s.Tier(IndexWords(t))
}
