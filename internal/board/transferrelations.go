package board

import (
	"fmt"
	"slices"
)

// TransferredRelation is a relation as a transfer carries it: once, from
// the end that holds it (the blocker, the parent). The target writes both
// ends, and on a store that keeps readiness on the blocked ticket, its
// count of open blockers.
type TransferredRelation struct {
	Kind RelationKind `json:"kind"`
	From string       `json:"from"`
	To   string       `json:"to"`
}

// Workspace is the workspace both ends are in (once validated).
func (r TransferredRelation) Workspace() string {
	slug, _, _ := ParseTicketID(r.From)
	return slug
}

// ValidateTransferredRelation checks one relation on its own: a known
// kind, two different tickets of one workspace.
func ValidateTransferredRelation(r TransferredRelation) error {
	if r.Kind != RelationBlocks && r.Kind != RelationParent {
		return invalid("relation %s → %s: kind %q is not blocks or parent", clip(r.From), clip(r.To), clip(string(r.Kind)))
	}
	fs, _, err := ParseTicketID(r.From)
	if err != nil {
		return invalid("relation %s: from %q is not a ticket id", r.Kind, clip(r.From))
	}
	ts, _, err := ParseTicketID(r.To)
	if err != nil {
		return invalid("relation %s: to %q is not a ticket id", r.Kind, clip(r.To))
	}
	if fs != ts {
		return invalid("relation %s %s → %s: the two tickets are in different workspaces, and relations stay inside one", r.Kind, r.From, r.To)
	}
	if r.From == r.To {
		return invalid("relation %s %s → %s: a ticket cannot be related to itself", r.Kind, r.From, r.To)
	}
	return nil
}

// RelationGraph holds the relations of a transfer read so far, to refuse
// one that breaks a rule a relate keeps: no cycle of either kind, one
// parent, parents at most MaxNesting deep, at most MaxRelations of a kind
// at either end, each relation once. An import holds it for the whole
// file: a few dozen bytes per relation.
type RelationGraph struct {
	blocks, blockedBy, children map[string][]string
	parent                      map[string]string
}

// NewRelationGraph is an empty graph.
func NewRelationGraph() *RelationGraph {
	return &RelationGraph{blocks: map[string][]string{}, blockedBy: map[string][]string{},
		children: map[string][]string{}, parent: map[string]string{}}
}

// Add checks r (valid on its own) against the relations added before it,
// and adds it.
func (g *RelationGraph) Add(r TransferredRelation) error {
	a, b := r.From, r.To
	if r.Kind == RelationBlocks {
		if slices.Contains(g.blocks[a], b) {
			return invalid("relation blocks %s → %s is in the file twice", a, b)
		}
		if len(g.blocks[a]) >= MaxRelations {
			return invalid("relation blocks %s → %s: %s would block more than %d tickets", a, b, a, MaxRelations)
		}
		if len(g.blockedBy[b]) >= MaxRelations {
			return invalid("relation blocks %s → %s: %s would be blocked by more than %d tickets", a, b, b, MaxRelations)
		}
		if g.reachesByBlocks(b, a) {
			return invalid("relation blocks %s → %s: %s already blocks %s through other relations of the file (a cycle)", a, b, b, a)
		}
		g.blocks[a] = append(g.blocks[a], b)
		g.blockedBy[b] = append(g.blockedBy[b], a)
		return nil
	}
	if p, ok := g.parent[b]; ok {
		if p == a {
			return invalid("relation parent %s → %s is in the file twice", a, b)
		}
		return invalid("relation parent %s → %s: %s already has parent %s, and a ticket has at most one", a, b, b, p)
	}
	if len(g.children[a]) >= MaxRelations {
		return invalid("relation parent %s → %s: %s would have more than %d sub-tickets", a, b, a, MaxRelations)
	}
	above := 1 // a itself
	for up := a; ; above++ {
		p, ok := g.parent[up]
		if !ok {
			break
		}
		if p == b {
			return invalid("relation parent %s → %s: %s is already above %s (a cycle)", a, b, b, a)
		}
		up = p
	}
	if levels := above + g.height(b); levels > MaxNesting {
		return invalid("relation parent %s → %s would nest tickets %d levels deep, and parents nest at most %d", a, b, levels, MaxNesting)
	}
	g.parent[b] = a
	g.children[a] = append(g.children[a], b)
	return nil
}

// reachesByBlocks reports whether start blocks target, directly or
// through others.
func (g *RelationGraph) reachesByBlocks(start, target string) bool {
	seen := map[string]bool{start: true}
	stack := []string{start}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, next := range g.blocks[n] {
			if next == target {
				return true
			}
			if !seen[next] {
				seen[next] = true
				stack = append(stack, next)
			}
		}
	}
	return false
}

// height is how many levels id and its sub-tickets take (1: no
// sub-tickets). The graph keeps nesting within MaxNesting, so it recurses
// at most that deep.
func (g *RelationGraph) height(id string) int {
	most := 0
	for _, c := range g.children[id] {
		most = max(most, g.height(c))
	}
	return most + 1
}

// String names r as errors do.
func (r TransferredRelation) String() string {
	return fmt.Sprintf("%s %s → %s", r.Kind, r.From, r.To)
}
