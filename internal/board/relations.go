package board

import (
	"context"
	"errors"

	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// Relations tie tickets of one workspace together: one ticket blocks
// another (the other is not ready until the first is done), or is its
// parent (sub-tickets). They are not Links, which point from a ticket to
// things outside the board. A relation is stored from both ends, in one
// write, so either ticket answers it.

// Tool names of the relation writes (ledger tool names too).
const (
	ToolRelateTickets   = "relate_tickets"
	ToolUnrelateTickets = "unrelate_tickets"
)

// RelationKind names a relation from the ticket that holds it: id blocks
// other, or id is other's parent.
type RelationKind string

const (
	// RelationBlocks: the ticket blocks the other, which is not ready
	// until it is done.
	RelationBlocks RelationKind = "blocks"
	// RelationParent: the ticket is the other's parent.
	RelationParent RelationKind = "parent"
)

// Relation limits.
const (
	// MaxRelations bounds the relations of one kind a ticket holds on
	// either end: what it blocks, what blocks it, its children.
	MaxRelations = 50
	// MaxNesting bounds how deep parents nest: a ticket, its parent and
	// so on up hold at most this many levels.
	MaxNesting = 5
	// MaxRelationWalk bounds the tickets a relate reads, beyond its two
	// ends, to refuse a cycle or a nesting too deep; a plan too tangled to
	// check within it is refused. Each ticket read is checked again when
	// the write commits (its version unchanged), so it also bounds the
	// size of that write: on DynamoDB one transaction holds at most 100
	// items.
	MaxRelationWalk = 48
)

// Event types of relation writes: both tickets get one.
const (
	EventTicketRelated   = "ticket.related"
	EventTicketUnrelated = "ticket.unrelated"
)

// How an event names a relation from its own ticket's end.
const (
	EndBlocks    = "blocks"
	EndBlockedBy = "blocked_by"
	EndParent    = "parent_of"
	EndChild     = "child_of"
)

// RelatedTicket is the other end of a relation as answers show it.
type RelatedTicket struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Status Status `json:"status"`
}

// Relations are the tickets one ticket is related to, as a store reads
// them: each list at most MaxRelations+1 long (more says the limit was
// passed), in ticket number order.
type Relations struct {
	// Ticket is the ticket itself, at the version read.
	Ticket    Ticket
	Policy    AIPolicy
	BlockedBy []RelatedTicket
	Blocks    []RelatedTicket
	Parent    *RelatedTicket
	Children  []RelatedTicket
}

// RelationStore reads and writes relations.
type RelationStore interface {
	// ReadRelations reads ticket id, its workspace's policy and the
	// tickets related to it. ErrNotFound when the ticket does not exist.
	ReadRelations(ctx context.Context, id string) (Relations, error)
	// RelationsOf reads the tickets related to t, a ticket just read (for
	// get_ticket): Relations with Ticket t and no Policy.
	RelationsOf(ctx context.Context, t Ticket) (Relations, error)
	// SaveRelation commits a relate or unrelate: the request record; when
	// tx.Link is set, the relation added or removed at both ends and both
	// tickets' new versions (After) with their events. It fails with
	// ErrVersionConflict when From, To or any ticket in Checked is no
	// longer at the version given, so two writes that each passed their
	// checks cannot together make a cycle. Other errors as SaveTicket's.
	SaveRelation(ctx context.Context, tx RelationTx) (ledger.Record, error)
}

// RelationTx is one relation write. From holds the relation (the blocker,
// the parent), To is the other end.
type RelationTx struct {
	Request ledger.Record // with Result
	Kind    RelationKind
	// Add: the relation is added; otherwise removed.
	Add bool
	// Link: the write changes a relation; false writes the record only
	// (a relation already there, or already gone), still checking From's
	// and To's versions.
	Link      bool
	From, To  Ticket // before
	FromAfter Ticket // with Link: version+1 and updated_at
	ToAfter   Ticket
	FromEvent Event
	ToEvent   Event
	Checked   map[string]int64 // tickets the checks read besides From and To, by id, at their versions
	// AllowedPolicies: nil allows any; AI callers pass read_write only.
	AllowedPolicies []AIPolicy
}

// RelateInput adds or removes a relation.
type RelateInput struct {
	RequestID string       `json:"request_id" jsonschema:"idempotency key: a new unique id for each relation you add or remove; after an error or lost connection call find_request, then retry with the same id and the same arguments"`
	ID        string       `json:"id" jsonschema:"ticket id, e.g. inbox-21: the blocker (kind blocks) or the parent (kind parent)"`
	Kind      RelationKind `json:"kind" jsonschema:"blocks: id blocks other (other is not ready until id is done); parent: id is other's parent (other is a sub-ticket)"`
	Other     string       `json:"other" jsonschema:"the other ticket's id, in the same workspace: the blocked ticket, or the sub-ticket"`
}

// Validate checks the relation's ends.
func (in *RelateInput) Validate() error {
	slug, _, err := ParseTicketID(in.ID)
	if err != nil {
		return err
	}
	oslug, _, err := ParseTicketID(in.Other)
	if err != nil {
		return inField("other", err)
	}
	if in.Kind != RelationBlocks && in.Kind != RelationParent {
		return inField("kind", invalid("kind %q is not a relation: use blocks (id blocks other) or parent (id is other's parent)", clip(string(in.Kind))))
	}
	if slug != oslug {
		return inField("other", invalid("'%s' and '%s' are in different workspaces; relations stay inside one workspace: create the ticket in %s (or move the work) and relate that", in.ID, in.Other, slug))
	}
	if in.ID == in.Other {
		return inField("other", invalid("a ticket cannot be related to itself: name another ticket as other"))
	}
	return nil
}

// RelationResult answers relate_tickets and unrelate_tickets.
type RelationResult struct {
	RequestID string `json:"request_id"`
	Replayed  bool   `json:"replayed"`
	// Changed: the call added (or removed) the relation; false when it
	// was already there (or already gone).
	Changed bool          `json:"changed" jsonschema:"true when this call added (relate) or removed (unrelate) the relation; false when it was already so"`
	Ticket  RelatedTicket `json:"ticket" jsonschema:"the ticket named by id"`
	Other   RelatedTicket `json:"other" jsonschema:"the ticket named by other"`
	Kind    RelationKind  `json:"kind"`
}

func (r *RelationResult) markReplayed() { r.Replayed = true }

// WasReplayed reports whether this answers a retry with the first call's
// result.
func (r RelationResult) WasReplayed() bool { return r.Replayed }

// TicketRelations is what get_ticket answers about a ticket's relations.
type TicketRelations struct {
	BlockedBy []RelatedTicket `json:"blocked_by" jsonschema:"the tickets that block this one: it is not ready until each is done"`
	Blocks    []RelatedTicket `json:"blocks" jsonschema:"the tickets this one blocks"`
	Parent    *RelatedTicket  `json:"parent" jsonschema:"the ticket this one is a sub-ticket of; null when none"`
	Children  ChildTickets    `json:"children" jsonschema:"this ticket's sub-tickets"`
	// Ready: open (candidate or waiting_ai) and every blocker done.
	Ready bool `json:"ready" jsonschema:"true when the ticket is open (candidate or waiting_ai) and every ticket that blocks it is done: claim_next may hand it out"`
}

// ChildTickets are a ticket's sub-tickets with how many are done.
type ChildTickets struct {
	Tickets []RelatedTicket `json:"tickets" jsonschema:"up to 50 sub-tickets, in number order"`
	Total   int             `json:"total"`
	Done    int             `json:"done"`
}

// relationsView is r as get_ticket answers it.
func relationsView(r Relations) TicketRelations {
	v := TicketRelations{BlockedBy: nonNil(r.BlockedBy), Blocks: nonNil(r.Blocks), Parent: r.Parent,
		Children: ChildTickets{Tickets: nonNil(r.Children), Total: len(r.Children)}}
	for _, c := range r.Children {
		if c.Status == StatusDone {
			v.Children.Done++
		}
	}
	v.Ready = ReadyWith(r.Ticket.Status, r.BlockedBy)
	return v
}

// ReadyWith reports whether a ticket in status st with these blockers is
// ready: open, and every blocker done.
func ReadyWith(st Status, blockers []RelatedTicket) bool {
	if !IsOpenStatus(st) {
		return false
	}
	for _, b := range blockers {
		if b.Status != StatusDone {
			return false
		}
	}
	return true
}

// related is t as the other end of a relation.
func related(t Ticket) RelatedTicket {
	return RelatedTicket{ID: t.ID, Title: t.Title, Status: t.Status}
}

// validateRelationEvent checks a transferred event's relation fields: a
// related or unrelated event names the relation from its end and the other
// ticket, and no other event does.
func validateRelationEvent(e Event) error {
	relational := e.Type == EventTicketRelated || e.Type == EventTicketUnrelated
	if !relational {
		if e.Relation != "" || e.Other != "" {
			return invalid("event %s: only a %s or %s event names a relation and another ticket", e.ID, EventTicketRelated, EventTicketUnrelated)
		}
		return nil
	}
	switch e.Relation {
	case EndBlocks, EndBlockedBy, EndParent, EndChild:
	default:
		return invalid("event %s: relation %q is not one of blocks, blocked_by, parent_of, child_of", e.ID, clip(e.Relation))
	}
	slug, _, err := ParseTicketID(e.Other)
	if err != nil || slug != e.Workspace {
		return invalid("event %s: other must name a ticket of workspace %s", e.ID, e.Workspace)
	}
	return nil
}

// ticketRelations reads what get_ticket answers about t's relations. A
// ticket deleted since it was read has none.
func (s *Service) ticketRelations(ctx context.Context, t Ticket) (TicketRelations, error) {
	r, err := s.store.RelationsOf(ctx, t)
	if errors.Is(err, ErrNotFound) {
		return relationsView(Relations{Ticket: t}), nil
	}
	if err != nil {
		return TicketRelations{}, s.storeFailure(err)
	}
	r.Ticket = t // the status the rest of the answer shows
	return relationsView(r), nil
}

// RelationPhrase says what a related or unrelated event's relation is,
// from the event's ticket: "blocked by inbox-2", "sub-ticket of inbox-1".
func RelationPhrase(end, other string) string {
	switch end {
	case EndBlocks:
		return "blocks " + other
	case EndBlockedBy:
		return "blocked by " + other
	case EndParent:
		return "parent of " + other
	case EndChild:
		return "sub-ticket of " + other
	}
	return end + " " + other
}
