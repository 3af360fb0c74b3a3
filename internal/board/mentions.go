package board

import "strings"

// MaxMentions bounds the names one text mentions: a text that names more
// mentions only its first MaxMentions, so one note cannot fill every
// inbox on the board (and a store's write stays bounded).
const MaxMentions = 20

// ParseMentions returns who a text mentions, in order of first mention and
// without repeats: "human:alice" for @alice and "ai:claude" for
// @ai:claude. A mention starts at an @ that begins the text or follows a
// character that cannot be part of a word, an address or a path (so
// bob@example.com and example.com/@alice mention nobody); sentence
// punctuation after the name ends it ("@alice." and "(@alice)" mention
// alice). Text in a code span (`...`, or a ``` block) mentions nobody, so
// code can be quoted as it is. Only the form is checked here: whether the
// name is someone is the Service's question (resolveMentions).
func ParseMentions(text string) []string {
	var out []string
	seen := map[string]bool{}
	for i := 0; i < len(text) && len(out) < MaxMentions; {
		c := text[i]
		if c == '`' {
			i = skipCodeSpan(text, i)
			continue
		}
		if c != '@' || (i > 0 && !mentionMayFollow(text[i-1])) {
			i++
			continue
		}
		name, n := mentionAt(text[i+1:])
		i += 1 + n
		if name != "" && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}

// mentionMayFollow says whether an @ after c starts a mention: not after
// a letter, a digit or a character of names, addresses and paths.
func mentionMayFollow(c byte) bool {
	if c >= 0x80 { // part of a non-ASCII letter or symbol: treat as a word
		return false
	}
	return !isAlnum(c) && !strings.ContainsRune("._-+@/:=`", rune(c))
}

// mentionAt reads the name after an @: the author it mentions ("" for
// none) and how many bytes it spans.
func mentionAt(s string) (string, int) {
	if rest, ok := strings.CutPrefix(s, "ai:"); ok {
		name := nameRun(rest, IsAgentNameByte)
		if isAIName("ai:" + name) {
			return "ai:" + name, len("ai:") + len(name)
		}
		return "", 0
	}
	handle := nameRun(s, func(c byte) bool { return isLowerOrDigit(c) || c == '-' })
	if handle == "" || !isSlug(handle) {
		return "", len(handle)
	}
	if rest := s[len(handle):]; rest != "" && (isAlnum(rest[0]) || rest[0] == '_' ||
		rest[0] == '.' && len(rest) > 1 && isAlnum(rest[1])) {
		return "", len(handle) // @Alice, @al_ice or @example.com: not a handle, plain text
	}
	return "human:" + handle, len(handle)
}

// nameRun is the longest prefix of s made of bytes ok accepts, without
// the sentence punctuation ('.', '-', '_') it ends with.
func nameRun(s string, ok func(byte) bool) string {
	n := 0
	for n < len(s) && ok(s[n]) {
		n++
	}
	return strings.TrimRight(s[:n], "._-")
}

// skipCodeSpan returns where the text continues after the code span that
// starts with the backticks at i: after the same number of backticks that
// close it, or just after the opening ones when nothing closes it (they are
// then plain backticks, as in Markdown).
func skipCodeSpan(text string, i int) int {
	n := 0
	for i+n < len(text) && text[i+n] == '`' {
		n++
	}
	fence := text[i : i+n]
	for j := i + n; j < len(text); {
		k := strings.Index(text[j:], fence)
		if k < 0 {
			break
		}
		end := j + k + n
		if end < len(text) && text[end] == '`' { // a longer run: not the closing one
			for end < len(text) && text[end] == '`' {
				end++
			}
			j = end
			continue
		}
		return end
	}
	return i + n
}
