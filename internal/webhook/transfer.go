package webhook

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A board transfer (export, import-board) carries a workspace's
// subscriptions. Without people it carries no secret: the moved
// subscription arrives paused (NoSecretReason), to be subscribed again.
// With people it carries each secret sealed as stored, and the key that
// opens them (SealingKey); the import seals them again under the target's
// own key, or adopts the source's key when it has none (Reseal). A moved
// subscription starts at the target's newest event: the history moved
// with it is not sent again.

// NoSecretReason is why a subscription moved without its secret is paused.
const NoSecretReason = "moved without its signing secret (only import-board --with-people carries secrets): delete this webhook and subscribe its URL again for a new secret"

// SealingKey is the server's key that seals signing secrets (made the
// first time it is asked for, as on a first subscription).
func SealingKey(ctx context.Context, secrets board.SecretStore) ([]byte, error) {
	s, err := newSealer(ctx, secrets)
	if err != nil {
		return nil, err
	}
	return s.key, nil
}

// Reseal opens a secret sealed under fromKey for subscription id and seals
// it under secrets' own key. A store that has no key yet (a fresh store,
// the usual target of a move) takes fromKey as its own, so the sealed
// bytes stay as they are and a board moved back and forth exports the
// same file.
func Reseal(ctx context.Context, secrets board.SecretStore, fromKey []byte, id string, sealed []byte) ([]byte, error) {
	from, err := sealerOf(fromKey)
	if err != nil {
		return nil, fmt.Errorf("the file's webhook sealing key: %w", err)
	}
	plain, err := from.open(id, sealed)
	if err != nil {
		return nil, fmt.Errorf("webhook %s: its secret does not open under the file's key: the file was altered or damaged", id)
	}
	to, err := adoptSealer(ctx, secrets, from.key)
	if err != nil {
		return nil, err
	}
	if bytes.Equal(to.key, from.key) {
		return sealed, nil
	}
	return to.seal(id, plain), nil
}

// ValidateTransferred checks a subscription read from a transfer file:
// what creation would accept (the address rule aside: it is checked again
// at every send; and an inbox's person need not be there: people move only
// with --with-people, and an inbox no one has is sent nothing), an id of this server's form, and a cursor left out.
func ValidateTransferred(sub Subscription) error {
	if !strings.HasPrefix(sub.ID, "wh_") || len(sub.ID) > 64 {
		return board.Errorf(board.CodeInvalid, "webhook id %q is not one this server makes (wh_…)", sub.ID)
	}
	if err := board.ValidateSlug(sub.Workspace); err != nil {
		return err
	}
	if err := checkURL(sub.URL, true); err != nil {
		return err
	}
	if sub.Format != FormatJSON && sub.Format != FormatSlack {
		return board.Errorf(board.CodeInvalid, "webhook %s: format %q is unknown", sub.ID, sub.Format)
	}
	if sub.CreatedBy == "" || sub.CreatedAt.IsZero() {
		return board.Errorf(board.CodeInvalid, "webhook %s: created_by and created_at are required", sub.ID)
	}
	if len(sub.PausedReason) > 1000 {
		return board.Errorf(board.CodeInvalid, "webhook %s: paused_reason is longer than 1000 bytes", sub.ID)
	}
	if err := validateInboxHandle(sub.Inbox); err != nil {
		return board.Errorf(board.CodeInvalid, "webhook %s: %s", sub.ID, err.Error())
	}
	return validateFilters(sub.Events)
}

// SameTransferred says whether two subscriptions are the same one: who
// made it, when, and what it sends where. Where delivery stands, and
// whether it is paused, may differ (the target has gone on since an
// earlier run).
func SameTransferred(a, b Subscription) bool {
	if a.ID != b.ID || a.Workspace != b.Workspace || a.URL != b.URL || a.Inbox != b.Inbox || a.Format != b.Format ||
		a.CreatedBy != b.CreatedBy || !a.CreatedAt.Equal(b.CreatedAt) || len(a.Events) != len(b.Events) {
		return false
	}
	for i := range a.Events {
		if a.Events[i] != b.Events[i] {
			return false
		}
	}
	return true
}
