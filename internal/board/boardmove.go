package board

import (
	"context"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// Moving a board between stores (ticket-ledger export and import-board)
// reads one store's board item by item and puts each item, exactly as it
// was, into another store of either kind. Stores implement BoardSource and
// BoardTarget; the file format and the order of items are internal/boardfile's.

// MovedWorkspace is a workspace as it moves: its settings and its
// ticket counter. Counts are not moved: the target keeps its own from the
// tickets it is given.
type MovedWorkspace struct {
	Slug     string   `json:"slug"`
	Name     string   `json:"name"`
	AIPolicy AIPolicy `json:"ai_policy"`
	// Next is the number the workspace's next ticket gets.
	Next int64 `json:"next_number"`
}

// PutOutcome is what putting one moved item did.
type PutOutcome int

const (
	// Added: the item was absent and is now stored.
	Added PutOutcome = iota
	// AlreadyThere: an identical item was stored (an earlier run, or a
	// resumed one, put it); nothing was written.
	AlreadyThere
	// Collision: a different item is stored under the same id; nothing
	// was written and the stored one is kept.
	Collision
)

// BoardSource streams a store's board, page by page, so that an export
// holds one page at a time whatever the board's size. Each method calls fn
// once per item and stops at fn's first error, returning it.
type BoardSource interface {
	// ExportWorkspaces: every workspace, by slug.
	ExportWorkspaces(ctx context.Context, fn func(MovedWorkspace) error) error
	// ExportTickets: the workspace's tickets, lowest number first, each
	// with every field (Number included, URL as stored).
	ExportTickets(ctx context.Context, workspace string, fn func(Ticket) error) error
	// ExportNotes: the notes of the workspace's tickets, in any order.
	ExportNotes(ctx context.Context, workspace string, fn func(Note) error) error
	// ExportEvents: the workspace's history (its tickets' events and its
	// own), oldest first, in the order the activity feed lists them.
	ExportEvents(ctx context.Context, workspace string, fn func(Event) error) error
	// ExportRequests: every completed request record unexpired at now.
	// Records still running are left out: their work is not finished.
	ExportRequests(ctx context.Context, now time.Time, fn func(ledger.Record) error) error
}

// BoardTarget puts moved items into a store. Each put writes one item
// and everything the store keeps beside it (indexes, counts, the
// workspace's counter) only if no item with that id is stored, in one
// atomic write, so a put that is repeated — a rerun, a resumed import —
// writes nothing twice. Parents come first: ErrNotFound when a ticket's
// workspace or a note's ticket is missing.
type BoardTarget interface {
	// BoardEmpty reports whether the store holds no ticket and no request
	// record (a fresh store's workspaces are no board yet).
	BoardEmpty(ctx context.Context) (bool, error)
	// PutWorkspace stores a workspace with its policy and counter. A
	// stored workspace that never held a ticket (counter at 1: a fresh
	// store's seeded workspace) takes the moved one's settings and
	// counter: Written.
	PutWorkspace(ctx context.Context, w MovedWorkspace) (PutOutcome, error)
	// PutTicket stores a ticket, counts it under its status, indexes its
	// tags and text, and raises its workspace's counter above its number.
	PutTicket(ctx context.Context, t Ticket) (PutOutcome, error)
	// PutNote stores a note of a stored ticket.
	PutNote(ctx context.Context, n Note) (PutOutcome, error)
	// PutEvent appends an event to its workspace's history.
	PutEvent(ctx context.Context, e Event) (PutOutcome, error)
	// PutRequest stores a completed request record, unless one unexpired
	// at now is under its key (an expired one is replaced); it answers
	// retries on the target as it did on the source.
	PutRequest(ctx context.Context, r ledger.Record, now time.Time) (PutOutcome, error)
}

// BoardMover is a store that can be the source and the target of a move.
type BoardMover interface {
	BoardSource
	BoardTarget
}

// MovedItem is one item of a batch: exactly one field is set.
type MovedItem struct {
	Ticket  *Ticket
	Note    *Note
	Event   *Event
	Request *ledger.Record
}

// BatchTarget is a BoardTarget that can put many items in one write (the
// embedded store, where a write is a transaction and its sync to disk).
type BatchTarget interface {
	// PutBatch puts items in order, each as its single put would, in one
	// atomic write. With stopAtCollision it stops after the first
	// Collision: the outcomes up to and including it are returned, and
	// nothing after it is written. On an error a *BatchError names the
	// item that failed: the outcomes of the items before it are returned
	// (they are written), and nothing from it on is written.
	PutBatch(ctx context.Context, items []MovedItem, now time.Time, stopAtCollision bool) ([]PutOutcome, error)
}

// BatchError is a batch put's failure at one item.
type BatchError struct {
	Index int
	Err   error
}

// Error is the item's failure.
func (e *BatchError) Error() string { return e.Err.Error() }

// Unwrap lets errors.Is and errors.As see the item's failure.
func (e *BatchError) Unwrap() error { return e.Err }
