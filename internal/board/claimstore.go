package board

import (
	"context"
	"time"
)

// ClaimStore finds the tickets claim_next may hand out. Claiming one is a
// SaveTicket like any other change (the claim is part of the ticket), so
// the store's version check is what makes a ticket go to one caller only.
type ClaimStore interface {
	// ClaimCandidates returns up to q.Limit tickets of q.Workspace in
	// q.Status that are free at q.Now (no claim, or one whose until is not
	// after q.Now) and match q.Tag and q.Owner, highest priority first,
	// then oldest (lowest number) first, with the workspace's policy.
	// ErrNotFound when the workspace does not exist; *PolicyError (with no
	// ticket read) when its policy is not in q.Readable. A store reads a
	// bounded number of tickets for it, whatever the workspace's size.
	ClaimCandidates(ctx context.Context, q ClaimQuery) (ClaimCandidates, error)
}

// ClaimQuery asks for claim_next's candidates.
type ClaimQuery struct {
	Workspace string
	Status    Status // an open status (IsOpenStatus)
	Tag       string
	Owner     string
	Now       time.Time
	Limit     int
	Readable  []AIPolicy // nil: any policy
}

// ClaimCandidates is what ClaimCandidates answers.
type ClaimCandidates struct {
	Policy  AIPolicy
	Tickets []Ticket
}

// PriorityRank orders priorities for claim_next: urgent (0) first, low (3)
// last; stores key their claim indexes by it.
func PriorityRank(p Priority) int {
	switch p {
	case PriorityUrgent:
		return 0
	case PriorityHigh:
		return 1
	case PriorityLow:
		return 3
	}
	return 2 // normal, and a ticket stored without one
}

// ClaimOrder compares two candidates as claim_next hands them out: higher
// priority first, then the older (lower number). Stores that sort in
// memory use it.
func ClaimOrder(a, b Ticket) int {
	if ra, rb := PriorityRank(a.Priority), PriorityRank(b.Priority); ra != rb {
		return ra - rb
	}
	switch {
	case a.Number < b.Number:
		return -1
	case a.Number > b.Number:
		return 1
	}
	return 0
}

// FreeAt reports whether nobody holds t at now: claim_next may hand it out.
func (t Ticket) FreeAt(now time.Time) bool { return !t.Claim.LiveAt(now) }
