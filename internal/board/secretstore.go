package board

import "context"

// SecretStore keeps the secrets the server makes for itself (the key that
// seals cursors; any later one, such as a signing key for outgoing
// messages, under its own name). They live in the store so every process
// and every Lambda instance on it uses the same bytes, and a restart keeps
// them.
type SecretStore interface {
	// ServerSecret returns the secret stored under name. When there is
	// none it stores candidate first: the first writer wins, and every
	// caller, concurrent or later, in this process or another, gets the
	// same bytes back. candidate is never stored over an existing secret.
	ServerSecret(ctx context.Context, name string, candidate []byte) ([]byte, error)
}
