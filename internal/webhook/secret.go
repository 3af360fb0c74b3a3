package webhook

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Signing secrets are kept sealed: AES-256-GCM under a server secret
// (board.SecretStore, the mechanism that keeps the key sealing cursors),
// with the subscription's id as additional data so a sealed secret moved
// to another subscription does not open. A copy of the subscriptions
// alone (a stolen backup of one table) gives no secret; whoever reads
// both the server secrets and the subscriptions can sign as the server.

// sealSecretName names the server secret that seals signing secrets.
const sealSecretName = "webhook-seal"

// sealKeyBytes is the AES-256 key size.
const sealKeyBytes = 32

// sealer seals and opens signing secrets.
type sealer struct {
	key  []byte
	aead cipher.AEAD
}

// newSealer reads (or, the first time, makes) the server's sealing key.
func newSealer(ctx context.Context, secrets board.SecretStore) (*sealer, error) {
	candidate := make([]byte, sealKeyBytes)
	rand.Read(candidate)
	return adoptSealer(ctx, secrets, candidate)
}

// adoptSealer reads the server's sealing key, or makes candidate that key
// when there is none yet.
func adoptSealer(ctx context.Context, secrets board.SecretStore, candidate []byte) (*sealer, error) {
	key, err := secrets.ServerSecret(ctx, sealSecretName, candidate)
	if err != nil {
		return nil, fmt.Errorf("reading the key that seals webhook secrets: %w", err)
	}
	return sealerOf(key)
}

// sealerOf is the sealer of a key.
func sealerOf(key []byte) (*sealer, error) {
	if len(key) < sealKeyBytes {
		return nil, fmt.Errorf("the key that seals webhook secrets has %d bytes, want %d", len(key), sealKeyBytes)
	}
	block, err := aes.NewCipher(key[:sealKeyBytes])
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &sealer{key: key[:sealKeyBytes], aead: aead}, nil
}

func (s *sealer) seal(subID, secret string) []byte {
	nonce := make([]byte, s.aead.NonceSize())
	rand.Read(nonce)
	return s.aead.Seal(nonce, nonce, []byte(secret), []byte(subID))
}

func (s *sealer) open(subID string, sealed []byte) (string, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n {
		return "", errors.New("the sealed signing secret is too short")
	}
	plain, err := s.aead.Open(nil, sealed[:n], sealed[n:], []byte(subID))
	if err != nil {
		return "", errors.New("the signing secret does not open under this server's key (was the store moved without its server secrets?)")
	}
	return string(plain), nil
}
