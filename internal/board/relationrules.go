package board

import (
	"context"
	"fmt"
	"slices"
)

// The rules a new relation must keep, checked by reading the tickets
// around it: no cycle of either kind, one parent, parents at most
// MaxNesting deep, at most MaxRelations of a kind at either end. The walks
// read at most MaxRelationWalk tickets besides the two ends, and every
// ticket read is named in the write, which commits only if none of them
// changed: two relates that would close a cycle together cannot both pass.

// checkRelate judges adding kind from→to (the relation not there yet) and
// answers the tickets it read besides the two, at their versions.
func (s *Service) checkRelate(ctx context.Context, p Principal, kind RelationKind, from, to Relations) (map[string]int64, error) {
	w := &relationWalk{s: s, p: p, checked: map[string]int64{}, known: map[string]Relations{
		from.Ticket.ID: from, to.Ticket.ID: to}}
	if kind == RelationBlocks {
		return w.checked, w.checkBlocks(ctx, from, to)
	}
	return w.checked, w.checkParent(ctx, from, to)
}

func (w *relationWalk) checkBlocks(ctx context.Context, from, to Relations) error {
	a, b := from.Ticket.ID, to.Ticket.ID
	if len(from.Blocks) >= MaxRelations {
		return Errorf(CodeConflict, "'%s' already blocks %d tickets, the most one ticket may block; nothing was written. Split '%s' into sub-tickets (relate_tickets kind parent) that each block fewer, or unrelate_tickets a link it no longer needs", a, MaxRelations, a)
	}
	if len(to.BlockedBy) >= MaxRelations {
		return Errorf(CodeConflict, "'%s' is already blocked by %d tickets, the most one ticket may wait for; nothing was written. Unrelate_tickets blockers that are done, or make one parent ticket of them and let it block '%s'", b, MaxRelations, b)
	}
	// A cycle: b already blocks a, directly or through others.
	path, err := w.reaches(ctx, to, a, func(r Relations) []RelatedTicket { return r.Blocks })
	if err != nil {
		return err
	}
	if path != nil {
		return Errorf(CodeConflict, "'%s' cannot block '%s': '%s' already blocks '%s' through %s, so neither could ever be ready (a cycle); nothing was written. Remove one of those links with unrelate_tickets, or leave this one out", a, b, b, a, chain(path))
	}
	return nil
}

func (w *relationWalk) checkParent(ctx context.Context, from, to Relations) error {
	a, b := from.Ticket.ID, to.Ticket.ID
	if to.Parent != nil {
		return Errorf(CodeConflict, "'%s' already has parent '%s', and a ticket has at most one parent; nothing was written. Call unrelate_tickets {id: '%s', kind: parent, other: '%s'} first, then relate again", b, to.Parent.ID, to.Parent.ID, b)
	}
	if len(from.Children) >= MaxRelations {
		return Errorf(CodeConflict, "'%s' already has %d sub-tickets, the most one ticket may have; nothing was written. Group some of them under a new sub-ticket of '%s' and relate the rest to it", a, MaxRelations, a)
	}
	// Up from a: its parents. Meeting b is a cycle; their number is how
	// deep a already nests.
	above := 0
	for up := from; up.Parent != nil; above++ {
		if up.Parent.ID == b {
			return Errorf(CodeConflict, "'%s' cannot be the parent of '%s': '%s' is already above it (a cycle); nothing was written. Leave this link out, or first unrelate_tickets the parent link that puts '%s' above '%s'", a, b, b, b, a)
		}
		if above >= MaxNesting {
			break // deeper than the rule allows already: refused below
		}
		next, err := w.read(ctx, up.Parent.ID)
		if err != nil {
			return err
		}
		up = next
	}
	// Down from b: how many levels its sub-tickets add.
	below, err := w.height(ctx, to, max(MaxNesting-above-2, 0))
	if err != nil {
		return err
	}
	// a's parents, a, b, and b's sub-tickets.
	if levels := above + 2 + below; levels > MaxNesting {
		return Errorf(CodeConflict, "making '%s' the parent of '%s' would nest tickets %d levels deep, and parents nest at most %d; nothing was written. Choose a parent higher up, or flatten the sub-tickets of '%s'", a, b, levels, MaxNesting, b)
	}
	return nil
}

// relationWalk reads tickets for the checks, each once, within the bound.
type relationWalk struct {
	s       *Service
	p       Principal
	known   map[string]Relations
	checked map[string]int64
}

func (w *relationWalk) read(ctx context.Context, id string) (Relations, error) {
	if r, ok := w.known[id]; ok {
		return r, nil
	}
	if len(w.checked) >= MaxRelationWalk {
		return Relations{}, Errorf(CodeConflict, "checking this link for cycles and nesting would read more than %d related tickets; nothing was written. The plan around these tickets is too tangled to check: link fewer tickets to each other, e.g. make a blocker block a parent ticket instead of each of its sub-tickets", MaxRelationWalk)
	}
	r, err := w.s.readRelated(ctx, w.p, id)
	if err != nil {
		return r, err
	}
	w.known[id], w.checked[id] = r, r.Ticket.Version
	return r, nil
}

// reaches walks next from start, breadth first, and answers the path to
// target (start first) when it gets there, nil when it does not.
func (w *relationWalk) reaches(ctx context.Context, start Relations, target string, next func(Relations) []RelatedTicket) ([]string, error) {
	prev := map[string]string{start.Ticket.ID: ""}
	queue := []Relations{start}
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		for _, n := range next(r) {
			if _, seen := prev[n.ID]; seen {
				continue
			}
			prev[n.ID] = r.Ticket.ID
			if n.ID == target {
				var path []string
				for id := n.ID; id != ""; id = prev[id] {
					path = append(path, id)
				}
				slices.Reverse(path)
				return path, nil
			}
			nr, err := w.read(ctx, n.ID)
			if err != nil {
				return nil, err
			}
			queue = append(queue, nr)
		}
	}
	return nil, nil
}

// height is how many levels r's sub-tickets nest below it (0: none),
// counted up to limit: beyond that the answer is only "more than limit".
func (w *relationWalk) height(ctx context.Context, r Relations, limit int) (int, error) {
	if len(r.Children) == 0 {
		return 0, nil
	}
	if limit <= 0 {
		return 1, nil
	}
	most := 0
	for _, c := range r.Children {
		cr, err := w.read(ctx, c.ID)
		if err != nil {
			return 0, err
		}
		h, err := w.height(ctx, cr, limit-1)
		if err != nil {
			return 0, err
		}
		most = max(most, h)
		if most >= limit {
			break
		}
	}
	return most + 1, nil
}

// chain names a path of tickets, "a → b → c".
func chain(ids []string) string {
	out := ""
	for i, id := range ids {
		if i > 0 {
			out += " → "
		}
		out += fmt.Sprintf("'%s'", id)
	}
	return out
}
