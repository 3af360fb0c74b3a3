package oauth

import (
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
)

// Token shapes (docs/oauth.md). An access token is tla_, its grant's id and
// 256 random bits; a refresh token the same with tlr_. The grant's id lets
// a store read the token and its grant in one request; it is not secret
// (only the random part is). The prefixes tell the resolver's verifiers
// apart (API tokens are tl_) and let secret scanners recognise a leak.
// Authorization codes are 256 random bits; registered clients' ids are tlc_
// and 128 random bits in hex, so they never look like an https URL (a
// metadata document's id).
const (
	accessPrefix  = "tla_"
	refreshPrefix = "tlr_"
	clientPrefix  = "tlc_"
	grantIDLen    = 16
	secretLen     = 43 // auth.NewSecret: 256 bits, base64url
)

func newGrantID() string  { return randomHex(grantIDLen / 2) }
func newClientID() string { return clientPrefix + randomHex(16) }

// newToken returns a token of the grant with the prefix.
func newToken(prefix, grantID string) string { return prefix + grantID + "." + auth.NewSecret() }

// parseToken returns the grant id of a token of prefix's kind; ok is
// false when the token is not well formed.
func parseToken(prefix, token string) (grantID string, ok bool) {
	rest, found := strings.CutPrefix(token, prefix)
	if !found || len(rest) != grantIDLen+1+secretLen || rest[grantIDLen] != '.' {
		return "", false
	}
	grantID = rest[:grantIDLen]
	if !isHex(grantID) || !isBase64URL(rest[grantIDLen+1:]) {
		return "", false
	}
	return grantID, true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return s != ""
}

func isBase64URL(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return s != ""
}

// wellFormedCode rejects what an authorization code never is.
func wellFormedCode(code string) bool { return len(code) == secretLen && isBase64URL(code) }
