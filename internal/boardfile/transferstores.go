package boardfile

import (
	"context"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// The stores' part in moving a board: every backend implements these
// beside board.Store and runs the storetest suite's move checks
// (storetest.RunTransfer). The items they carry are the domain's
// (board.TransferredWorkspace, board.Ticket, ..., board.PutOutcome).

// TransferSource streams a store's board, page by page, so that an export
// holds one page at a time whatever the board's size. Each method calls fn
// once per item and stops at fn's first error, returning it.
type TransferSource interface {
	// TransferWorkspaces: every workspace, by slug.
	TransferWorkspaces(ctx context.Context, fn func(board.TransferredWorkspace) error) error
	// TransferTickets: the workspace's tickets, lowest number first, each
	// with every field (Number included, URL as stored).
	TransferTickets(ctx context.Context, workspace string, fn func(board.Ticket) error) error
	// TransferRelations: the relations of the workspace's tickets, each
	// once, from the end that holds it (the blocker, the parent): by that
	// ticket's number, blocks before parent, then by the other end's
	// number, so that a board moved there and back exports the same file.
	TransferRelations(ctx context.Context, workspace string, fn func(board.TransferredRelation) error) error
	// TransferNotes: the notes of the workspace's tickets, in any order.
	TransferNotes(ctx context.Context, workspace string, fn func(board.Note) error) error
	// TransferEvents: the workspace's history (its tickets' events and its
	// own), oldest first, in the order the activity feed lists them.
	TransferEvents(ctx context.Context, workspace string, fn func(board.Event) error) error
	// TransferInbox: the inbox items of the workspace's events, every
	// recipient's, each with whether it was read, in any order.
	TransferInbox(ctx context.Context, workspace string, fn func(board.InboxEntry) error) error
	// TransferRequests: every completed request record unexpired at now.
	// Records still running are left out: their work is not finished.
	TransferRequests(ctx context.Context, now time.Time, fn func(ledger.Record) error) error
}

// TransferTarget puts moved items into a store. Each put writes one item
// and everything the store keeps beside it (indexes, counts, the
// workspace's counter) only if no item with that id is stored, in one
// atomic write, so a put that is repeated — a rerun, a resumed import —
// writes nothing twice. Parents come first: board.ErrNotFound when a ticket's
// workspace or a note's ticket is missing.
type TransferTarget interface {
	// BoardEmpty reports whether the store holds no ticket and no request
	// record (a fresh store's workspaces are no board yet).
	BoardEmpty(ctx context.Context) (bool, error)
	// PutWorkspace stores a workspace with its policy and counter. A
	// stored workspace that never held a ticket (counter at 1: a fresh
	// store's seeded workspace) takes the moved one's settings and
	// counter: board.Added.
	PutWorkspace(ctx context.Context, w board.TransferredWorkspace) (board.PutOutcome, error)
	// PutTicket stores a ticket, counts it under its status, indexes its
	// tags and text, and raises its workspace's counter above its number.
	PutTicket(ctx context.Context, t board.Ticket) (board.PutOutcome, error)
	// PutRelation stores a relation between two stored tickets at both
	// ends, with whatever the store keeps of readiness (a blocked ticket's
	// count of open blockers, its place among the claimable tickets).
	// The tickets keep their versions. board.ErrNotFound when either
	// ticket is missing.
	PutRelation(ctx context.Context, r board.TransferredRelation) (board.PutOutcome, error)
	// PutNote stores a note of a stored ticket.
	PutNote(ctx context.Context, n board.Note) (board.PutOutcome, error)
	// PutEvent appends an event to its workspace's history.
	PutEvent(ctx context.Context, e board.Event) (board.PutOutcome, error)
	// PutInboxItem stores an item in its recipient's inbox, read or
	// unread as it is, unless the inbox holds one under its id:
	// AlreadyThere when it is the same one (board.SameInboxEntry, read or
	// not), else Collision.
	PutInboxItem(ctx context.Context, e board.InboxEntry) (board.PutOutcome, error)
	// PutRequest stores a completed request record, unless one unexpired
	// at now is under its key (an expired one is replaced); it answers
	// retries on the target as it did on the source.
	PutRequest(ctx context.Context, r ledger.Record, now time.Time) (board.PutOutcome, error)
}

// TransferStore is a store that can be the source and the target of a move.
type TransferStore interface {
	TransferSource
	TransferTarget
}

// BatchTarget is a TransferTarget that can put many items in one write (the
// embedded store, where a write is a transaction and its sync to disk).
type BatchTarget interface {
	// PutBatch puts items in order, each as its single put would, in one
	// atomic write. With stopAtCollision it stops after the first
	// board.Collision: the outcomes up to and including it are returned, and
	// nothing after it is written. On an error a *board.BatchError names the
	// item that failed: the outcomes of the items before it are returned
	// (they are written), and nothing from it on is written.
	PutBatch(ctx context.Context, items []board.TransferredItem, now time.Time, stopAtCollision bool) ([]board.PutOutcome, error)
}

// OAuthTransferSource streams the grants and tokens a move carries, page by
// page, so an export holds one page at a time. Each method calls fn once
// per record and stops at fn's first error, returning it.
type OAuthTransferSource interface {
	// TransferOAuthGrants: every grant unrevoked and unexpired at now, in
	// any order. Revoked and expired grants can never be used again, so
	// they stay behind.
	TransferOAuthGrants(ctx context.Context, now time.Time, fn func(board.OAuthGrant) error) error
	// TransferOAuthTokens: every token unexpired at now, used refresh tokens
	// included (a second use of one after the move must still revoke its
	// grant), of any grant, in any order; the caller keeps the tokens of
	// the grants it moves.
	TransferOAuthTokens(ctx context.Context, now time.Time, fn func(board.OAuthToken) error) error
}

// OAuthTransferTarget puts moved grants and tokens into a store. Like
// TransferTarget's puts, each writes only when nothing is under the id and
// otherwise compares: AlreadyThere when the stored record is the same one
// (board.SameOAuthGrant, board.SameOAuthToken: its identity, not its use, which may
// have gone on in the target since an earlier run), Collision otherwise.
type OAuthTransferTarget interface {
	// PutOAuthGrant stores a grant as it is (revocation, last use and
	// expiry included); board.ErrNotFound when its person is not in the store.
	PutOAuthGrant(ctx context.Context, g board.OAuthGrant) (board.PutOutcome, error)
	// PutOAuthToken stores a token as it is (its use included);
	// board.ErrNotFound when its grant is not in the store.
	PutOAuthToken(ctx context.Context, t board.OAuthToken) (board.PutOutcome, error)
}

// OAuthTransferStore is a store that can be the source and the target of a move of
// connected agents.
type OAuthTransferStore interface {
	OAuthTransferSource
	OAuthTransferTarget
}
