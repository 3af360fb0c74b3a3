package ledger

import (
	"regexp"
	"strings"
	"testing"
)

// TestRequestIDPatternAgreesWithValidate: the pattern the schemas publish
// accepts exactly what ValidateRequestID accepts, for every single byte,
// every length around the limit, and a few multi-byte characters.
func TestRequestIDPatternAgreesWithValidate(t *testing.T) {
	re := regexp.MustCompile(RequestIDPattern)
	cases := []string{"", strings.Repeat("a", MaxRequestIDLength), strings.Repeat("a", MaxRequestIDLength+1), "é", "a b", "ａ"}
	for c := range 256 {
		cases = append(cases, "x"+string(rune(c)), string([]byte{'x', byte(c)}))
	}
	for _, id := range cases {
		if valid, matches := ValidateRequestID(id) == nil, re.MatchString(id); valid != matches {
			t.Errorf("request_id %q: ValidateRequestID says valid=%v, the pattern matches=%v", id, valid, matches)
		}
	}
}
