package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Password hashing is argon2id with the parameters RFC 9106 (section 4)
// recommends when memory is limited, its "second recommended option":
// t=3 passes over m=64 MiB with p=4 lanes, a 128-bit random salt and a
// 256-bit tag. The first recommended option needs 2 GiB per hash, more than
// the function's 512 MB. docs/decisions.md gives the measured cost.
const (
	argonTime    = 3
	argonMemory  = 64 * 1024 // KiB
	argonThreads = 4
	argonSaltLen = 16
	argonKeyLen  = 32
)

// Passwords are 10 to 1024 characters: long enough to resist guessing
// (with the rate limit), short enough that hashing one is bounded.
const (
	MinPassword = 10
	MaxPassword = 1024
)

// hashSlots bounds how many hashes run at once in this process: each takes
// 64 MiB while it runs, so a burst of sign-ins waits for a slot instead of
// growing the heap without bound.
var hashSlots = make(chan struct{}, 2)

func withHashSlot[T any](ctx context.Context, fn func() T) (T, error) {
	select {
	case hashSlots <- struct{}{}:
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
	defer func() { <-hashSlots }()
	return fn(), nil
}

// HashPassword returns the password's argon2id hash in the PHC string
// format ($argon2id$v=19$m=65536,t=3,p=4$<salt>$<tag>), which carries its
// parameters so they can change later without breaking stored hashes.
func HashPassword(ctx context.Context, password string) (string, error) {
	salt := make([]byte, argonSaltLen)
	rand.Read(salt)
	key, err := withHashSlot(ctx, func() []byte {
		return argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// phc is a parsed hash.
type phc struct {
	memory  uint32
	time    uint32
	threads uint8
	salt    []byte
	key     []byte
}

var errBadHash = errors.New("stored password hash is not an argon2id hash this server reads")

func parseHash(encoded string) (phc, error) {
	var h phc
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return h, errBadHash
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &h.memory, &h.time, &h.threads); err != nil {
		return h, errBadHash
	}
	// Bounds keep a damaged record from costing unbounded memory or time.
	if h.memory < 8*uint32(h.threads) || h.memory > 1<<20 || h.time < 1 || h.time > 20 || h.threads < 1 {
		return h, errBadHash
	}
	var err error
	if h.salt, err = base64.RawStdEncoding.DecodeString(parts[4]); err != nil || len(h.salt) < 8 {
		return h, errBadHash
	}
	if h.key, err = base64.RawStdEncoding.DecodeString(parts[5]); err != nil || len(h.key) < 16 || len(h.key) > 64 {
		return h, errBadHash
	}
	return h, nil
}

// VerifyPassword reports whether password matches the stored hash,
// comparing the tags in constant time.
func VerifyPassword(ctx context.Context, password, encoded string) (bool, error) {
	h, err := parseHash(encoded)
	if err != nil {
		return false, err
	}
	key, err := withHashSlot(ctx, func() []byte {
		return argon2.IDKey([]byte(password), h.salt, h.time, h.memory, h.threads, uint32(len(h.key)))
	})
	if err != nil {
		return false, err
	}
	return subtle.ConstantTimeCompare(key, h.key) == 1, nil
}

// dummyHash is verified against when there is no real hash (unknown handle,
// no password set yet), so a wrong handle takes as long as a wrong password.
var dummyHash = "$argon2id$v=19$m=65536,t=3,p=4$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
