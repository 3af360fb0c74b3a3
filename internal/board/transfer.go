package board

import "github.com/ticket-ledger/ticket-ledger/internal/ledger"

// A transfer moves a board between stores (ticket-ledger export and
// import-board): it reads one store's board item by item and puts each
// item, exactly as it was, into another store of either kind. The word is
// "transfer" in the code, so that "move" keeps meaning move_ticket and
// "import" the import_tickets task. The stores' part in it (the interfaces
// they implement), the file format and the order of items are
// internal/boardfile's; the items as they travel are the domain's, here.

// TransferredWorkspace is a workspace as a transfer carries it: its
// settings and its ticket counter. Counts are not carried: the target keeps
// its own from the tickets it is given.
type TransferredWorkspace struct {
	Slug     string   `json:"slug"`
	Name     string   `json:"name"`
	AIPolicy AIPolicy `json:"ai_policy"`
	// Next is the number the workspace's next ticket gets.
	Next int64 `json:"next_number"`
}

// PutOutcome is what putting one transferred item did.
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

// TransferredItem is one item of a batch: exactly one field is set.
type TransferredItem struct {
	Ticket  *Ticket
	Note    *Note
	Event   *Event
	Request *ledger.Record
	Inbox   *InboxEntry
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
