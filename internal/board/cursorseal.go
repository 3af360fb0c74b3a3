package board

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// Every cursor the service hands out (tickets, the activity feed, a
// ticket's notes and history) is sealed: its payload, then a MAC of the
// payload and of the kind of list it continues, under a key only the
// server knows. A cursor is opaque to callers, but a caller can still
// decode base64; the MAC is what makes a position one the server itself
// chose for that caller's list. Without it a caller could name any event or
// ticket as a position, and a store resolving that position would answer
// relative to something the caller may not see. One code path seals and
// opens them all.

// cursorSecretName names the server secret that seals cursors.
const cursorSecretName = "cursor-mac"

// serverSecretBytes is the size of a key the server makes for itself.
const serverSecretBytes = 32

// cursorTagBytes is how much of the HMAC-SHA256 a cursor carries: 128
// bits, beyond any guessing.
const cursorTagBytes = 16

// The kinds of cursor: a cursor of one list is refused by another.
const (
	cursorTickets = "tickets"
	cursorFeed    = "feed"
	cursorNotes   = "notes"
	cursorHistory = "history"
)

// cursorSeal seals and opens cursors under the server's key.
type cursorSeal struct{ key []byte }

// seal encodes payload and appends its tag.
func (c *cursorSeal) seal(kind string, payload any) string {
	raw, err := json.Marshal(payload)
	if err != nil {
		panic(fmt.Sprintf("board: a %s cursor does not encode: %v", kind, err)) // the payloads are plain structs
	}
	return base64.RawURLEncoding.EncodeToString(raw) + "." + base64.RawURLEncoding.EncodeToString(c.tag(kind, raw))
}

// open checks the tag and decodes the payload into into; false for
// anything this key did not seal for this kind of list.
func (c *cursorSeal) open(kind, s string, into any) bool {
	body, tag, ok := strings.Cut(s, ".")
	if !ok {
		return false
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return false
	}
	got, err := base64.RawURLEncoding.DecodeString(tag)
	if err != nil || !hmac.Equal(got, c.tag(kind, raw)) {
		return false
	}
	return json.Unmarshal(raw, into) == nil
}

func (c *cursorSeal) tag(kind string, raw []byte) []byte {
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte(kind))
	m.Write([]byte{0})
	m.Write(raw)
	return m.Sum(nil)[:cursorTagBytes]
}

// forgedCursor is the answer to a cursor that does not open: altered,
// made up, sealed for another list, or sealed by a server with another
// key (a store that was moved).
func forgedCursor(tool string) error {
	return invalid("cursor is not one this server issued for %s (altered, made up, or from another list or server): pass next_cursor from the previous answer unchanged, or omit cursor to start again from the first page", tool)
}

// cursors returns the seal under the store's key, reading (or, the first
// time on a store, creating) the key once per process.
func (s *Service) cursors(ctx context.Context) (*cursorSeal, error) {
	s.sealMu.Lock()
	defer s.sealMu.Unlock()
	if s.seal != nil {
		return s.seal, nil
	}
	key, err := s.serverSecret(ctx, cursorSecretName)
	if err != nil {
		return nil, err
	}
	s.seal = &cursorSeal{key: key}
	return s.seal, nil
}

// serverSecret gets or creates the named server secret: a fresh random
// candidate is offered, and the store keeps whichever came first.
func (s *Service) serverSecret(ctx context.Context, name string) ([]byte, error) {
	candidate := make([]byte, serverSecretBytes)
	rand.Read(candidate) // never fails (crypto/rand)
	key, err := s.store.ServerSecret(ctx, name, candidate)
	if err != nil {
		return nil, s.storeFailure(err)
	}
	if len(key) < serverSecretBytes {
		return nil, s.storeFailure(fmt.Errorf("server secret %q has %d bytes, want at least %d", name, len(key), serverSecretBytes))
	}
	return key, nil
}
