package board

import "strings"

// Hand-written checks for the identifier formats (docs/architecture.md,
// "Data"). Regular
// expressions with bounded repetition ({0,39}, {1,128}) compile into large
// programs at package init, which a Lambda cold start pays for; these loops
// cost nothing until called. charsets_test.go holds them to the patterns.

func isLowerOrDigit(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

func isAlnum(c byte) bool { return isLowerOrDigit(c) || c >= 'A' && c <= 'Z' }

// every reports whether s is min..max bytes long and ok accepts each byte.
func every(s string, min, max int, ok func(byte) bool) bool {
	if len(s) < min || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

// isSlug: [a-z0-9][a-z0-9-]{0,39}
func isSlug(s string) bool {
	return len(s) >= 1 && isLowerOrDigit(s[0]) &&
		every(s[1:], 0, 39, func(c byte) bool { return isLowerOrDigit(c) || c == '-' })
}

// isTag: [a-z0-9._-]{1,32}
func isTag(s string) bool {
	return every(s, 1, 32, func(c byte) bool { return isLowerOrDigit(c) || c == '.' || c == '_' || c == '-' })
}

// MaxAgentName is the longest agent name (the part after "ai:").
const MaxAgentName = 64

// IsAgentNameByte says whether c may stand in an agent name after its
// first character ([A-Za-z0-9._-]); the first is a letter or digit. Code
// that makes names (the approval page's suggestion) uses it, so it cannot
// suggest a name the check refuses.
func IsAgentNameByte(c byte) bool { return isAlnum(c) || c == '.' || c == '_' || c == '-' }

// isAIName: ai:[A-Za-z0-9][A-Za-z0-9._-]{0,63}
func isAIName(s string) bool {
	name, ok := strings.CutPrefix(s, "ai:")
	return ok && len(name) >= 1 && isAlnum(name[0]) && every(name[1:], 0, MaxAgentName-1, IsAgentNameByte)
}

// isPersonAuthor: human:<handle>, the handle of the slug's form.
func isPersonAuthor(s string) bool {
	handle, ok := strings.CutPrefix(s, "human:")
	return ok && isSlug(handle)
}

// splitTicketID: <slug>-<n>, n of [1-9][0-9]{0,17}.
func splitTicketID(id string) (slug, number string, ok bool) {
	i := strings.LastIndexByte(id, '-')
	if i < 0 {
		return "", "", false
	}
	slug, number = id[:i], id[i+1:]
	digits := every(number, 1, 18, func(c byte) bool { return c >= '0' && c <= '9' })
	return slug, number, isSlug(slug) && digits && number[0] != '0'
}
