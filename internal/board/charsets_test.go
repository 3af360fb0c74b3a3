package board

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// The hand-written checks accept exactly what the patterns of the data
// (docs/architecture.md, "Data") do, over strings built from the characters
// that matter, every length around the limits included.
func TestCharsetsMatchTheirPatterns(t *testing.T) {
	checks := []struct {
		name    string
		pattern *regexp.Regexp
		check   func(string) bool
	}{
		{"slug", regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,39}$`), isSlug},
		{"tag", regexp.MustCompile(`^[a-z0-9._-]{1,32}$`), isTag},
		{"ai name", regexp.MustCompile(`^ai:[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`), isAIName},
		{"person author", regexp.MustCompile(`^human:[a-z0-9][a-z0-9-]{0,39}$`), isPersonAuthor},
		{"ticket id", regexp.MustCompile(`^([a-z0-9][a-z0-9-]{0,39})-([1-9][0-9]{0,17})$`), func(s string) bool { _, _, ok := splitTicketID(s); return ok }},
	}
	alphabet := []string{"a", "z", "0", "9", "-", ".", "_", "A", "Z", ":", " ", "é", "ai:", "human:", "-1", "-0"}
	rng := rand.New(rand.NewPCG(1, 2))
	var inputs []string
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for range rng.IntN(70) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		inputs = append(inputs, b.String())
	}
	for _, n := range []int{0, 1, 31, 32, 33, 39, 40, 41, 63, 64, 65} {
		inputs = append(inputs, strings.Repeat("a", n), "ai:"+strings.Repeat("b", n), "human:"+strings.Repeat("d", n), strings.Repeat("c", n)+"-7", "inbox-"+strings.Repeat("9", n))
	}
	for _, c := range checks {
		for _, in := range inputs {
			if want := c.pattern.MatchString(in); c.check(in) != want {
				t.Errorf("%s(%q) = %v, pattern says %v", c.name, in, !want, want)
			}
		}
	}
}
