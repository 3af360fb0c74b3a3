package board

import (
	"slices"
	"testing"
)

// sharedWords counts what checking each query word against the title's
// Words counts, without building that list: Latin words folded, CJK pairs,
// repeats in the title counted once, words the title lacks not at all.
func TestSharedWordsCountsAsTheTitlesWords(t *testing.T) {
	titles := []string{
		"Printer jam on the third floor printer",
		"STRASSE straße Ｐrinter",
		"LEDの点滅を直す、ブログ記事の下書き",
		"e\u0301te\u0301 café cafe",
		"",
		"a b c",
	}
	queries := []string{
		"printer floor jam kitchen",
		"strasse printer",
		"点滅 記事 下書き led",
		"été cafe",
		"nothing here",
	}
	for _, title := range titles {
		have := Words(title)
		for _, q := range queries {
			words := similarWords(q)
			want := 0
			for _, w := range words {
				if slices.Contains(have, w) {
					want++
				}
			}
			if got := sharedWords(title, words); got != want {
				t.Errorf("sharedWords(%q, %q) = %d, want %d", title, words, got, want)
			}
		}
	}
}
