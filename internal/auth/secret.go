package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
)

// NewSecret returns 256 random bits, URL-safe: a session id or an
// invitation token. It is shown to its holder once and stored only as
// HashSecret of it.
func NewSecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// HashSecret is how a secret is stored and looked up: hex SHA-256. A fast
// hash is right here (unlike passwords): the secret has 256 random bits, so
// there is nothing to guess. Lookups compare hashes, never the secret, so
// their timing tells nothing about a secret.
func HashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// wellFormedSecret rejects what NewSecret never makes before any lookup.
func wellFormedSecret(s string) bool {
	if len(s) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil
}
