package board

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// RelateTickets adds a relation: in.ID blocks in.Other, or is its parent.
func (s *Service) RelateTickets(ctx context.Context, in RelateInput) (RelationResult, error) {
	return s.relation(ctx, ToolRelateTickets, in, true)
}

// UnrelateTickets removes a relation; removing one that is not there
// changes nothing and is no error.
func (s *Service) UnrelateTickets(ctx context.Context, in RelateInput) (RelationResult, error) {
	return s.relation(ctx, ToolUnrelateTickets, in, false)
}

// relation runs a relate or unrelate: replay first, then both tickets and
// their policy, then the rules, then a commit that checks every ticket the
// rules read is unchanged, so a race with another relation is computed
// again rather than let through.
func (s *Service) relation(ctx context.Context, tool string, in RelateInput, add bool) (RelationResult, error) {
	if err := in.Validate(); err != nil {
		return RelationResult{}, err
	}
	p := PrincipalFrom(ctx)
	rec, canonical, err := s.prepare(p, tool, in.RequestID, in)
	if err != nil {
		return RelationResult{}, err
	}
	return s.writeRelation(ctx, p, tool, in, add, rec, canonical)
}

// writeRelation writes a validated relation under the ledger record rec:
// a call's own, or one an import derives from its request and row.
func (s *Service) writeRelation(ctx context.Context, p Principal, tool string, in RelateInput, add bool, rec ledger.Record, canonical []byte) (RelationResult, error) {
	slug, _, _ := ParseTicketID(in.ID)
	lc := ledgerCall{p: p, tool: tool, canonical: canonical, fingerprint: rec.Fingerprint, workspace: slug, ticketID: in.ID}
	// Both tickets' locks, in id order so two relations of one pair
	// never wait on each other.
	ids := []string{in.ID, in.Other}
	slices.Sort(ids)
	for _, id := range ids {
		release, err := s.locks.take(ctx, id)
		if err != nil {
			return RelationResult{}, s.storeFailure(err)
		}
		defer release()
	}
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 0 {
			if err := backoff(ctx, attempt-1); err != nil {
				return RelationResult{}, s.storeFailure(err)
			}
		}
		existing, err := s.store.GetRequest(ctx, rec.Key, s.now())
		switch {
		case err == nil:
			return replayAs[RelationResult](ctx, s, existing, lc)
		case !errors.Is(err, ErrNotFound):
			return RelationResult{}, s.storeFailure(err)
		}
		from, err := s.readRelated(ctx, p, in.ID)
		if err != nil {
			return RelationResult{}, err
		}
		to, err := s.readRelated(ctx, p, in.Other)
		if err != nil {
			return RelationResult{}, err
		}
		if err := writeDenied(p, slug, from.Policy); err != nil {
			return RelationResult{}, err
		}
		tx := RelationTx{Kind: in.Kind, Add: add, From: from.Ticket, To: to.Ticket}
		tx.Link = hasRelation(in.Kind, from, to) != add
		if add && tx.Link {
			if tx.Checked, err = s.checkRelate(ctx, p, in.Kind, from, to); err != nil {
				return RelationResult{}, err
			}
		}
		now := s.now()
		rec.CreatedAt, rec.ExpiresAt = now, now.Add(s.retention)
		tx.FromAfter, tx.ToAfter = from.Ticket, to.Ticket
		if tx.Link {
			tx.FromAfter.Version, tx.FromAfter.UpdatedAt = from.Ticket.Version+1, now
			tx.ToAfter.Version, tx.ToAfter.UpdatedAt = to.Ticket.Version+1, now
			fromEnd, toEnd := relationEnds(in.Kind)
			tx.FromEvent = s.relationEvent(p, tx.FromAfter, add, fromEnd, in.Other, in.RequestID, now)
			tx.ToEvent = s.relationEvent(p, tx.ToAfter, add, toEnd, in.ID, in.RequestID, now)
		}
		built := RelationResult{RequestID: in.RequestID, Changed: tx.Link, Ticket: related(tx.FromAfter), Other: related(tx.ToAfter), Kind: in.Kind}
		result, err := json.Marshal(built)
		if err != nil {
			return RelationResult{}, s.storeFailure(err)
		}
		rec.Result = result
		tx.Request = rec
		if p.IsAI() {
			tx.AllowedPolicies = []AIPolicy{PolicyReadWrite}
		}
		stored, err := s.store.SaveRelation(ctx, tx)
		var exists *ledger.ExistsError
		var denied *PolicyError
		switch {
		case errors.Is(err, ErrVersionConflict):
			continue // a ticket the rules read changed: read and judge again
		case errors.As(err, &exists):
			return replayAs[RelationResult](ctx, s, exists.Record, lc)
		case errors.Is(err, ErrNotFound):
			return RelationResult{}, Errorf(CodeNotFound, "ticket '%s' or '%s' was deleted meanwhile; call list_tickets to find ticket ids", in.ID, in.Other)
		case errors.As(err, &denied):
			if denied.Policy == PolicyHidden {
				return RelationResult{}, ticketNotFound(in.ID)
			}
			return RelationResult{}, writeDenied(p, slug, denied.Policy)
		case err != nil:
			return RelationResult{}, s.storeFailure(err)
		}
		return committed(s, stored.Result, built, result)
	}
	return RelationResult{}, Errorf(CodeConflict, "tickets '%s' and '%s' (or tickets related to them) kept changing while this call tried to write; nothing was written by it, retry with the same request_id", in.ID, in.Other)
}

// readRelated reads a ticket's relations for p: a ticket p may not read
// does not exist.
func (s *Service) readRelated(ctx context.Context, p Principal, id string) (Relations, error) {
	r, err := s.store.ReadRelations(ctx, id)
	if errors.Is(err, ErrNotFound) || (err == nil && !readable(p, r.Policy)) {
		return r, ticketNotFound(id)
	}
	if err != nil {
		return r, s.storeFailure(err)
	}
	return r, nil
}

// relationEnds names a relation of kind from each of its ends.
func relationEnds(kind RelationKind) (from, to string) {
	if kind == RelationParent {
		return EndParent, EndChild
	}
	return EndBlocks, EndBlockedBy
}

// hasRelation reports whether from already holds the relation to to.
func hasRelation(kind RelationKind, from, to Relations) bool {
	if kind == RelationParent {
		return to.Parent != nil && to.Parent.ID == from.Ticket.ID
	}
	return slices.ContainsFunc(from.Blocks, func(r RelatedTicket) bool { return r.ID == to.Ticket.ID })
}

func (s *Service) relationEvent(p Principal, t Ticket, add bool, end, other, requestID string, now time.Time) Event {
	ev := s.claimEvent(p, t, requestID, now)
	ev.Type, ev.Title, ev.Relation, ev.Other = EventTicketUnrelated, t.Title, end, other
	if add {
		ev.Type = EventTicketRelated
	}
	return ev
}
