package board

import (
	"slices"
	"strings"
	"testing"
)

func TestWordsOfCJKRuns(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		// A run is its overlapping pairs; Han, Kana and Hangul mix in one run.
		{"ブログ記事の下書き", []string{"ブロ", "ログ", "グ記", "記事", "事の", "の下", "下書", "書き"}},
		// A run ends where the script changes, with or without a space.
		{"LED点滅", []string{"led", "点滅"}},
		{"Claude Code から追加: LED 点滅の記事案", []string{"claude", "code", "から", "ら追", "追加", "led", "点滅", "滅の", "の記", "記事", "事案"}},
		{"v2版", []string{"v2"}}, // a run of one character has no pair
		// ー is Katakana (its script is Common), in full and half width.
		{"サーバー", []string{"サー", "ーバ", "バー"}},
		{"ｻｰﾊﾞ", []string{"ｻｰ", "ｰﾊ", "ﾊﾞ"}},
		{"人々", []string{"人々"}},
		{"数据库优化", []string{"数据", "据库", "库优", "优化"}},
		{"검색 기능", []string{"검색", "기능"}},
		// A combining mark stays with its character (か + ゙ is が).
		{"か\u3099き", []string{"か\u3099き"}},
		{"ＬＥＤ点滅", []string{"ｌｅｄ", "点滅"}}, // full-width Latin is Latin, folded
	} {
		if got := Words(c.text); !slices.Equal(got, c.want) {
			t.Errorf("Words(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestParseSearchCJK(t *testing.T) {
	for _, c := range []struct {
		q      string
		words  []string
		prefix string
	}{
		{"記事", []string{"記事"}, ""}, // pairs are whole words, never a prefix
		{"下書き", []string{"下書", "書き"}, ""},
		{"LED 点滅", []string{"led", "点滅"}, ""},
		{"点滅 LE", []string{"点滅"}, "le"}, // a Latin last word is still a prefix
		{"記事案 draft", []string{"記事", "事案"}, "draft"},
		{"LED点滅", []string{"led", "点滅"}, ""},
		{"記事 記事", []string{"記事"}, ""},
	} {
		s, err := ParseSearch(c.q)
		if err != nil || !slices.Equal(s.Words, c.words) || s.Prefix != c.prefix {
			t.Errorf("ParseSearch(%q) = %q + prefix %q (%v), want %q + %q", c.q, s.Words, s.Prefix, err, c.words, c.prefix)
		}
	}
	for q, hint := range map[string]string{
		"記":            "at least two adjacent characters",
		"LED 点":        "at least two adjacent characters",
		"ブログ記事の下書きを確認": "search for a shorter part",
	} {
		var e *Error
		_, err := ParseSearch(q)
		if err == nil || !asError(err, &e) || e.Code != CodeInvalid || !strings.Contains(err.Error(), hint) {
			t.Errorf("ParseSearch(%q): %v, want an invalid error saying %q", q, err, hint)
		}
	}
}

func TestCJKTiers(t *testing.T) {
	w := IndexWords(Ticket{Title: "Claude Code から追加: LED 点滅の記事案", Body: "ブログ記事の下書きを確認する。両方を比較"})
	for _, c := range []struct {
		q    string
		tier int
		ok   bool
	}{
		{"記事", 0, true}, {"記事案", 0, true}, {"LED 点滅", 0, true}, {"LED点滅", 0, true},
		{"下書き", 1, true}, {"確認", 1, true}, {"比較", 1, true}, {"両方", 1, true}, {"記事 確認", 1, true},
		{"記案", 0, false}, // not adjacent
		{"事の下書", 1, true},
		{"記事の記事案", 0, false}, // each pair is there, but not all adjacent
		{"点滅 missing ", 0, false},
	} {
		s, err := ParseSearch(c.q)
		if err != nil {
			t.Fatalf("%q: %v", c.q, err)
		}
		if tier, ok := s.Tier(w); tier != c.tier || ok != c.ok {
			t.Errorf("%q: tier %d ok %v, want %d %v", c.q, tier, ok, c.tier, c.ok)
		}
	}
}

func TestSimilarWordsCJK(t *testing.T) {
	a, b := similarWords("ブログ記事の下書き"), similarWords("ブログ記事を確認")
	shared := 0
	for _, w := range b {
		if slices.Contains(a, w) {
			shared++
		}
	}
	if shared < SimilarNeed(len(a)) || shared < SimilarNeed(len(b)) {
		t.Errorf("「ブログ記事の下書き」 %q and 「ブログ記事を確認」 %q share %d words: not similar either way", a, b, shared)
	}
	// Pairs with Hiragana (particles) come after the others.
	if got := similarWords("Claude Code から追加: LED 点滅の記事案"); !slices.Equal(got, []string{"claude", "code", "led", "追加", "点滅", "記事", "事案", "から"}) {
		t.Errorf("similarWords of a mixed title = %q", got)
	}
}

// A run of three or more characters is found where it is written whole,
// not where its pairs are apart; in the title's tier only when the title
// has it whole.
func TestCJKRunsAreWhole(t *testing.T) {
	w := IndexWords(Ticket{Title: "下書と書き", Body: "下書きを見る"})
	for q, want := range map[string][2]int{"下書き": {1, 1}, "下書": {0, 1}, "書き": {0, 1}, "下書と書き": {0, 1}, "書きを見": {1, 1}} {
		s, _ := ParseSearch(q)
		tier, ok := s.Tier(w)
		if tier != want[0] || ok != (want[1] == 1) {
			t.Errorf("%q: tier %d ok %v, want %d %v", q, tier, ok, want[0], want[1] == 1)
		}
	}
	apart := IndexWords(Ticket{Title: "t", Body: "下書を見て書き直す"})
	if s, _ := ParseSearch("下書き"); func() bool { _, ok := s.Tier(apart); return ok }() {
		t.Error("下書き matches a ticket with 下書 and 書き apart")
	}
}
