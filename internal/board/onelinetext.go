package board

import (
	"strings"
	"unicode"
)

// One-line text (a ticket's title, a link's title) must be one line as
// every reader shows it, and show what it holds:
//   - no control characters (newlines, tabs, …) and no Unicode line or
//     paragraph separators (U+2028, U+2029), which break a line too;
//   - no bidirectional embedding, override or isolate controls (U+202A to
//     U+202E, U+2066 to U+2069), which make text display in another order
//     than it is stored ("Trojan Source");
//   - and, for a title, at least one visible character: a title of only
//     spaces, zero-width or format characters (U+200B, U+FEFF) or combining
//     marks shows as nothing.

// isBidiControl reports the embedding, override and isolate controls.
func isBidiControl(r rune) bool {
	return r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069'
}

// checkOneLine refuses what makes v not one plain line.
func checkOneLine(field, v string) error {
	if i := strings.IndexFunc(v, func(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' }); i >= 0 {
		return invalid("%s must be one line, without line breaks or control characters (found U+%04X); put details in body", field, []rune(v[i:])[0])
	}
	if i := strings.IndexFunc(v, isBidiControl); i >= 0 {
		return invalid("%s must not contain bidirectional control characters (found U+%04X): they make text display in another order than it is stored", field, []rune(v[i:])[0])
	}
	return nil
}

// isVisible: a letter, digit, punctuation mark or symbol.
func isVisible(r rune) bool {
	return unicode.In(r, unicode.L, unicode.N, unicode.P, unicode.S)
}

// checkVisible refuses text that shows as nothing.
func checkVisible(field, v string) error {
	if strings.IndexFunc(v, isVisible) < 0 {
		return invalid("%s must contain a visible character; it has only spaces, invisible or combining characters", field)
	}
	return nil
}
