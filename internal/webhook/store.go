package webhook

import (
	"context"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// KeepAttempts is how many delivery attempts a subscription's log keeps:
// a store drops the oldest beyond it.
const KeepAttempts = 100

// Store is what webhooks need from a backend. Every backend runs the
// contract suite in internal/webhook/webhooktest. Missing subscriptions and
// events are board.ErrNotFound.
type Store interface {
	// CreateSubscription stores a new subscription (its id is new) and
	// the request record of its creation (with its result), together or
	// not at all. When an unexpired record holds rec.Key it writes nothing
	// and returns *ledger.ExistsError carrying that record. It judges
	// expiry by rec.CreatedAt.
	CreateSubscription(ctx context.Context, sub Subscription, rec ledger.Record) error
	// GetRequest returns the unexpired request record under key, or
	// board.ErrNotFound (board.Store's method: one ledger for both).
	GetRequest(ctx context.Context, key ledger.Key, now time.Time) (ledger.Record, error)
	// GetSubscription returns one subscription with its progress.
	GetSubscription(ctx context.Context, id string) (Subscription, error)
	// ListSubscriptions returns a workspace's subscriptions ("" : every
	// workspace's), oldest first.
	ListSubscriptions(ctx context.Context, workspace string) ([]Subscription, error)
	// DeleteSubscription removes a subscription and its delivery log.
	DeleteSubscription(ctx context.Context, id string) error
	// SetPaused pauses (with a reason) or resumes a subscription. Resuming
	// also clears the failures, so the held event is tried at once.
	SetPaused(ctx context.Context, id string, paused bool, reason string) error
	// SaveProgress stores where delivery stands. It never recreates a
	// deleted subscription.
	SaveProgress(ctx context.Context, id string, p Progress) error

	// AddAttempt appends to the delivery log, keeping the newest
	// KeepAttempts.
	AddAttempt(ctx context.Context, id string, a Attempt) error
	// ListAttempts returns up to limit attempts, newest first.
	ListAttempts(ctx context.Context, id string, limit int) ([]Attempt, error)

	// EventsEnd is the cursor after a workspace's newest event ("" while it
	// has none): a new subscription starts there, so it is sent what
	// happens from now on, not the workspace's past.
	EventsEnd(ctx context.Context, workspace string) (string, error)
	// EventsAfter returns up to limit events of the workspace that follow
	// cursor ("": from the first), oldest first, each with its own cursor.
	// An event committed after another never sorts before it, so a cursor
	// that moved past an event never skips one committed later.
	EventsAfter(ctx context.Context, workspace, cursor string, limit int) ([]FeedEvent, error)
	// FindEvent returns one event of the workspace by id.
	FindEvent(ctx context.Context, workspace, id string) (FeedEvent, error)
}

// FeedEvent is an event as a sender reads it: its place in the feed and
// the title of the ticket it is about, as the ticket is now.
type FeedEvent struct {
	Cursor string
	Event  board.Event
	// Title of the event's ticket; empty for an event of the workspace
	// itself (or of a ticket that no longer exists).
	Title string
}

// Progress is where a subscription's delivery stands.
type Progress struct {
	// Cursor: every event up to it was delivered (or filtered out).
	Cursor string `json:"-"`
	// Failures counts the attempts that failed in a row on the held event.
	Failures int `json:"failures"`
	// FailingSince is when the first of those failures happened (zero
	// while nothing fails).
	FailingSince time.Time `json:"failing_since,omitzero"`
	// NextAttempt: no attempt before this time (zero: at once).
	NextAttempt time.Time `json:"next_attempt,omitzero"`
}
