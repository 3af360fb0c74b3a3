package board

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// Store is the storage contract of the use cases (Service): what they read
// and write, and nothing else. People, sessions and API tokens are
// internal/auth's contract, the authorization server's records
// internal/oauth's, and moving a board between stores internal/boardfile's;
// every backend implements all of them and runs the storetest suite
// unchanged. Methods are shaped by use case so a backend can serve each in
// as few round trips as it can (DynamoDB: reads in one).
//
// Write methods are atomic: the request record (with the stored result), the
// ticket or note, the workspace counter and the event commit together or not
// at all. A write first checks the request key: when an unexpired record
// exists it returns *ledger.ExistsError carrying that record, whatever else
// would have failed, so a retry always gets the first call's answer. Writes
// take "now" from tx.Request.CreatedAt (the Service's clock), never from the
// wall clock, when they judge expiry.
type Store interface {
	// Workspace creation and settings through the ledger (workspacestore.go).
	WorkspaceWriter
	// Whether a task's credential still stands (credential.go).
	CredentialStanding
	// The candidates of similar tickets (similar.go).
	SimilarStore
	// TaskStore: durable tasks and staged imports (taskstore.go).
	TaskStore
	// The server's own secrets, shared by every process (secretstore.go).
	SecretStore

	// The tickets claim_next may hand out (claimstore.go).
	ClaimStore
	// One note found by its id, for edit_note (notestore.go).
	NoteStore
	// Blocks and parent links between tickets (relations.go).
	RelationStore

	// ListWorkspaces returns every workspace with its counts, by slug.
	ListWorkspaces(ctx context.Context) ([]Workspace, error)
	// GetWorkspace returns one workspace with its counts, or ErrNotFound.
	GetWorkspace(ctx context.Context, slug string) (Workspace, error)
	// SetWorkspacePolicy changes ai_policy and appends the event.
	SetWorkspacePolicy(ctx context.Context, slug string, policy AIPolicy, ev Event) error

	// ListTickets returns one page, newest (highest number) first, with the
	// workspace's policy; ErrNotFound when the workspace does not exist,
	// *PolicyError (with no ticket read) when its policy is not in
	// q.Readable.
	ListTickets(ctx context.Context, q TicketQuery) (TicketPage, error)
	// ListEvents returns a workspace's most recent events, newest first.
	ListEvents(ctx context.Context, workspace string, limit int) ([]Event, error)

	// GetRequest returns the unexpired record under key, or ErrNotFound.
	GetRequest(ctx context.Context, key ledger.Key, now time.Time) (ledger.Record, error)
	// LoadForWrite reads what an update, move or note needs in one go: the
	// unexpired record under key (nil if none), the ticket and its
	// workspace's policy. A missing ticket is not an error here: Ticket is nil.
	LoadForWrite(ctx context.Context, key ledger.Key, ticketID string, now time.Time) (WriteContext, error)

	// CreateTicket commits a new ticket. The store assigns the next number of
	// the workspace and calls tx.Build with it (possibly more than once if it
	// retries internally). Errors: *ledger.ExistsError, ErrNotFound (no such
	// workspace), *PolicyError (workspace policy not in tx.AllowedPolicies).
	CreateTicket(ctx context.Context, tx CreateTx) (ledger.Record, error)
	// SaveTicket commits a change to an existing ticket: the request record,
	// the new ticket state if After is set, the event and the note if set.
	// The stored version must still be Before.Version, also when After is nil
	// (the stored result was computed from Before). Errors:
	// *ledger.ExistsError, ErrVersionConflict, ErrNotFound, *PolicyError
	// (the ticket's workspace policy is not in tx.AllowedPolicies).
	SaveTicket(ctx context.Context, tx SaveTx) (ledger.Record, error)

	// ClaimRequest puts a running record with an owner and lease, for work
	// with effects outside one transaction. It succeeds when no unexpired
	// record exists or the existing one is running with an expired lease
	// (take-over); otherwise *ledger.ExistsError.
	ClaimRequest(ctx context.Context, rec ledger.Record, now time.Time) error
	// CompleteRequest stores the result and marks the record done, only if
	// rec.Owner still owns it (fencing); otherwise ErrNotOwner.
	CompleteRequest(ctx context.Context, key ledger.Key, owner string, result []byte) error
	// ReleaseRequest deletes a running record, only if owner still owns it.
	ReleaseRequest(ctx context.Context, key ledger.Key, owner string) error

	PolicyReader // policyreader.go
	Pinger       // pinger.go
	ChangeReader // changereader.go
	FeedReader   // feedstore.go

	Close() error

	BoundedReads
}

// ErrNotFound is returned by stores for a missing workspace, ticket or record.
var ErrNotFound = errors.New("not found")

// ErrExists is returned by stores when a person or workspace to be created
// exists already.
var ErrExists = errors.New("already exists")

// ErrNotOwner is returned when a fenced ledger operation lost its lease.
var ErrNotOwner = errors.New("request record is owned by another worker")

// PolicyError is returned by CreateTicket when the workspace's policy is
// not allowed for the caller.
type PolicyError struct{ Policy AIPolicy }

// Error names the policy that refused the write; the service turns it into
// the caller's answer before anyone reads this text.
func (e *PolicyError) Error() string { return "workspace policy is " + string(e.Policy) }

// CheckPolicy is how a store applies a transaction's AllowedPolicies to the
// workspace's current policy: nil allows any; otherwise a *PolicyError.
func CheckPolicy(allowed []AIPolicy, policy AIPolicy) error {
	if allowed != nil && !slices.Contains(allowed, policy) {
		return &PolicyError{Policy: policy}
	}
	return nil
}

// TicketQuery filters a page of tickets. Before is the number below which
// to continue (0: from the newest).
type TicketQuery struct {
	Workspace string
	Status    Status
	Owner     string
	Tag       string
	Query     string // words (search.go); the store parses it with ParseSearch
	// Claimed, when set, keeps only tickets with (true) or without
	// (false) a claim live at Now.
	Claimed *bool
	// Ready keeps only tickets ready for work: in an open status, with
	// every blocker done (a store judges the blockers, by the kept
	// Ticket.OpenBlockers or by reading them).
	Ready bool
	// Parent keeps only the sub-tickets of this ticket id.
	Parent string
	Now    time.Time
	Before int64
	// Tier: with a Query, the search tier Before lies in (search.go);
	// the tiers after it follow in full.
	Tier  int
	Limit int
	// Readable: nil reads any workspace; otherwise the policies the caller
	// may read.
	Readable []AIPolicy
	// MaxBytes bounds the page's text (Ticket.TextBytes): the store stops
	// adding tickets once the page holds this much, and says More. The
	// first ticket is always returned. 0: no bound.
	MaxBytes int
	// MaxScan bounds the tickets a store examines beyond what an index
	// answers exactly (a text search, a second filter): once it has looked
	// at this many without filling the page, it returns what it found with
	// Partial and Next. 0: DefaultScan.
	MaxScan int
}

// DefaultScan is TicketQuery.MaxScan when the caller names none.
const DefaultScan = 1000

// TicketPage is one page of a listing.
type TicketPage struct {
	Policy  AIPolicy
	Tickets []Ticket
	// More: tickets may match below Next (or, when Next is 0, below the
	// last ticket of the page).
	More bool
	Next int64
	// NextTier: with a Query, the search tier of the position the listing
	// continues below (ContinueBelow): Next's, or the last ticket's.
	NextTier int
	// Partial: the page stopped at MaxScan or MaxBytes with fewer than
	// Limit tickets; matches may follow below Next.
	Partial bool
	// Counts are the workspace's kept ticket counts per status, as the
	// store read them with the policy (nil when it did not): they give a
	// list its total without counting.
	Counts map[Status]int
}

// ContinueBelow is the number a listing continues below after this page,
// or 0 when nothing follows.
func (p TicketPage) ContinueBelow() int64 {
	switch {
	case !p.More:
		return 0
	case p.Next > 0:
		return p.Next
	case len(p.Tickets) > 0:
		return p.Tickets[len(p.Tickets)-1].Number
	}
	return 0
}

// WriteContext is what LoadForWrite returns.
type WriteContext struct {
	Existing *ledger.Record
	Ticket   *Ticket
	Policy   AIPolicy
}

// CreatePlan is what a new ticket commits.
type CreatePlan struct {
	Ticket Ticket
	Event  Event
	Result []byte // stored in the request record
	// Inbox are the inbox items the event adds (inboxaddress.go), written
	// with it.
	Inbox []InboxEntry
}

// CreateTx asks a store to create a ticket.
type CreateTx struct {
	Request   ledger.Record // Result is filled from the plan
	Workspace string
	// AllowedPolicies: nil allows any; AI callers pass read_write only.
	AllowedPolicies []AIPolicy
	// LookUp makes the reads the answer needs besides the write (the
	// similar tickets create_ticket answers, kept in the result so a
	// replay says what the first answer said); nil when there are none.
	// A store calls it at most once, before the first Build, outside its
	// write lock so those reads run beside other writes, and may skip it
	// when it already knows the call is a replay (the record answers
	// that). Build calls it itself if the store has not.
	LookUp func(ctx context.Context)
	Build  func(number int64) (CreatePlan, error)
}

// SaveTx asks a store to change a ticket.
type SaveTx struct {
	Request ledger.Record // with Result
	Before  Ticket        // the state the change was computed from
	After   *Ticket       // nil: nothing changes but the request record
	Event   *Event
	Note    *Note // a new note
	// EditedNote replaces the stored note with its id (edit_note,
	// redact_note): its body, edited_at and redaction change, nothing else.
	EditedNote *Note
	// ScrubbedEvents replace the stored events with their ids, in the same
	// transaction: a redaction's earlier note.edited events of its note,
	// with their texts taken out. Their ids, times, tickets and order do
	// not change; at most MaxNoteEdits of them.
	ScrubbedEvents []Event
	// ScrubbedRequests replace the arguments and results of stored request
	// records with their keys, in the same transaction (a redaction's
	// add_note and edit_note records of its note); a record gone since it
	// was read stays gone. At most MaxNoteEdits+1 of them.
	ScrubbedRequests []ledger.Record
	// Inbox are the inbox items the event adds, written with it.
	Inbox []InboxEntry
	// AllowedPolicies: nil allows any; AI callers pass read_write only, so
	// a policy changed since LoadForWrite is enforced at commit.
	AllowedPolicies []AIPolicy
}
