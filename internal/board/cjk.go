package board

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Japanese, Chinese and Korean text is written without spaces between its
// words, so a run of such characters cannot be split into words by
// separators. Search finds any two or more adjacent characters of a run
// instead: a run is indexed, and searched for, as its overlapping pairs of
// characters ("ブログ記事" is ブロ, ログ, グ記, 記事), each matched as a
// whole word. A query's run needs every one of its pairs, so 記事 finds
// 「ブログ記事の下書き」 while 記の (characters that are not adjacent there)
// does not. A run of one character has no pair: it is not indexed, and a
// query of one is refused. A run ends where the script changes to another
// one (LED点滅 is LED and 点滅), but not between Han, Kana and Hangul, which
// Japanese mixes within one word (下書き).

// isCJK says whether r belongs to a run: Han (with 々 and 〇), Hiragana,
// Katakana and Hangul, and the Kana marks whose script is Common: the
// prolonged sound mark ー, the half-width ｰ, ﾞ and ﾟ, and the vertical
// repeat marks 〱 to 〵.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		r == 'ー' || r == 'ｰ' || r == 'ﾞ' || r == 'ﾟ' || r >= '〱' && r <= '〵'
}

// isCJKWord says whether w is a pair (or the one character of a run).
func isCJKWord(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return isCJK(r)
}

// token is one word of letters and digits, or one CJK run.
type token struct {
	// words are the token's folded words: the word itself, or the run's
	// overlapping pairs (none for a run of one character).
	words []string
	cjk   bool
	// text is a run's characters as written (for messages).
	text string
}

// tokens splits text into words and CJK runs, in order. A combining mark
// belongs to the character before it, in a run as in a word.
func tokens(text string) []token {
	var out []token
	scanTokens(text, func(w string) {
		out = append(out, token{words: []string{w}})
	}, func(chars []string) {
		t := token{cjk: true, text: strings.Join(chars, "")}
		for i := 0; i+1 < len(chars); i++ {
			t.words = append(t.words, chars[i]+chars[i+1])
		}
		out = append(out, t)
	})
	return out
}

// scanTokens is tokens' walk: it hands each folded word to word and each
// CJK run's characters to run (valid only during the call), in order, so
// a caller that needs only the words (Words, similar tickets' ranking)
// builds no token.
func scanTokens(text string, word func(string), run func(chars []string)) {
	var w strings.Builder
	wordRunes := 0
	var chars []string // the current run's characters, each with its marks
	flush := func() {
		switch {
		case w.Len() > 0:
			word(w.String())
			w.Reset()
			wordRunes = 0
		case len(chars) > 0:
			run(chars)
			chars = chars[:0]
		}
	}
	for _, r := range text {
		switch {
		case !isWordRune(r):
			flush()
		case unicode.IsMark(r) && len(chars) > 0:
			chars[len(chars)-1] += string(r)
		case isCJK(r):
			if w.Len() > 0 {
				flush()
			}
			chars = append(chars, string(r))
		default:
			if len(chars) > 0 {
				flush()
			}
			if wordRunes < MaxWordRunes {
				wordRunes += foldRune(&w, r, MaxWordRunes-wordRunes)
			}
		}
	}
	flush()
}
