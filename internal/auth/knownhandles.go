package auth

import (
	"context"
	"errors"
	"sync"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// maxKnownHandles bounds the credentials an instance remembers the person
// of (about 100 bytes each); past it the memory starts again empty, which
// costs each credential one two-read check.
const maxKnownHandles = 10000

// knownHandles remembers whose each credential is. That never changes (a
// token, session or grant belongs to the person it was made for), so it
// is safe to keep for the life of an instance; everything that does change
// (revoked, expired, disabled, password reset) is read on every call. With
// the handle known, the credential and its person are one read
// (CredentialStore) instead of two in a row.
type knownHandles struct {
	mu sync.Mutex
	m  map[string]string
}

func credentialKey(kind board.CredentialKind, id string) string { return string(kind) + ":" + id }

func (k *knownHandles) get(kind board.CredentialKind, id string) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.m[credentialKey(kind, id)]
}

func (k *knownHandles) remember(kind board.CredentialKind, id, handle string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.m == nil || len(k.m) >= maxKnownHandles {
		k.m = make(map[string]string)
	}
	k.m[credentialKey(kind, id)] = handle
}

// LookupCredential reads a call's credential and its person: in one read
// when this instance has seen the credential before, else the credential
// and then its person. The person is returned only when they may act now
// (exists, not disabled); otherwise ErrBadCredential, as for a credential
// that is missing. whose gives the credential's person from what was read.
// Bearer verifiers of other packages (OAuth) call it too, so that every
// kind of credential is checked the same way.
func (a *Accounts) LookupCredential(ctx context.Context, l board.CredentialLookup, whose func(board.FoundCredential) string) (board.FoundCredential, board.Person, error) {
	l.Handle = a.handles.get(l.Kind, l.ID)
	f, err := a.store.LookupCredential(ctx, l)
	if errors.Is(err, board.ErrNotFound) {
		return f, board.Person{}, ErrBadCredential
	}
	if err != nil {
		return f, board.Person{}, err
	}
	handle := whose(f)
	if f.Person == nil || f.Person.Handle != handle {
		// Not remembered (or, impossibly, remembered wrong): read the person.
		p, err := a.store.GetPerson(ctx, handle)
		switch {
		case errors.Is(err, board.ErrNotFound):
			return f, board.Person{}, ErrBadCredential
		case err != nil:
			return f, board.Person{}, err
		}
		f.Person = &p
		a.handles.remember(l.Kind, l.ID, handle)
	}
	if f.Person.Disabled {
		return f, board.Person{}, ErrBadCredential
	}
	return f, *f.Person, nil
}
