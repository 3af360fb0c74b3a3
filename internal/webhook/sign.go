package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// SecretPrefix begins every signing secret, as in the Standard Webhooks
// convention: the rest is the key, base64.
const SecretPrefix = "whsec_"

// secretKeyBytes is the size of a new signing key.
const secretKeyBytes = 32

// NewSecret makes a signing secret.
func NewSecret() string {
	key := make([]byte, secretKeyBytes)
	rand.Read(key) // never fails (crypto/rand)
	return SecretPrefix + base64.StdEncoding.EncodeToString(key)
}

// secretKey is the HMAC key a secret stands for.
func secretKey(secret string) ([]byte, error) {
	raw, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok {
		return nil, fmt.Errorf("a signing secret begins with %s", SecretPrefix)
	}
	return base64.StdEncoding.DecodeString(raw)
}

// Sign is the webhook-signature header of a message: "v1," and the base64
// HMAC-SHA256 of "id.timestamp.body" under the secret's key.
func Sign(secret, id string, timestamp int64, body []byte) (string, error) {
	key, err := secretKey(secret)
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + strconv.FormatInt(timestamp, 10) + "."))
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil)), nil
}
