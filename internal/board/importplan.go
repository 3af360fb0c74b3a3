package board

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// A plan import: rows name each other by key, local to the import, and say
// their parent and what blocks them, so a whole plan is written by one
// call. Every rule a relate_tickets call keeps is judged here for the
// whole plan before anything is written; the relations themselves are
// written after the rows (see importrelations.go).

// MaxPlanRows bounds an import whose rows carry keys or relations: its
// answer names the ticket of every key, and every relation is a write.
const MaxPlanRows = 1000

// maxKeyLength bounds a row key.
const maxKeyLength = 64

// ImportRow is one row of an import: a new ticket, optionally named by a
// key and related to other rows or existing tickets.
type ImportRow struct {
	NewTicket
	Key       string   `json:"key,omitempty" jsonschema:"a name for this row, local to this import (1-64 characters of a-z A-Z 0-9 . _ -, not shaped like a ticket id such as inbox-21), for other rows' parent and blocked_by"`
	Parent    string   `json:"parent,omitempty" jsonschema:"this ticket's parent: another row's key, or an existing ticket id in the same workspace"`
	BlockedBy []string `json:"blocked_by,omitempty" jsonschema:"up to 50 tickets that must be done before this one is ready: other rows' keys or existing ticket ids in the same workspace"`
}

func (r ImportRow) planned() bool { return r.Key != "" || r.Parent != "" || len(r.BlockedBy) > 0 }

func (in ImportTicketsInput) hasPlan() bool {
	return slices.ContainsFunc(in.Tickets, ImportRow.planned)
}

// planRef is what a row's parent or blocker names: another row, or an
// existing ticket.
type planRef struct {
	row int // -1 for an existing ticket
	id  string
}

func (r planRef) String() string {
	if r.row >= 0 {
		return fmt.Sprintf("tickets[%d]", r.row)
	}
	return fmt.Sprintf("'%s'", r.id)
}

// rowKeys maps each row key to its row.
func (in ImportTicketsInput) rowKeys() map[string]int {
	keys := map[string]int{}
	for i, r := range in.Tickets {
		if r.Key != "" {
			keys[r.Key] = i
		}
	}
	return keys
}

// resolve finds what ref names for row i (field says where it stands).
func (in ImportTicketsInput) resolve(keys map[string]int, i int, field, ref string) (planRef, error) {
	if j, ok := keys[ref]; ok {
		if j == i {
			return planRef{}, invalid("tickets[%d].%s names the row itself (a cycle); nothing was imported: leave it out", i, field)
		}
		return planRef{row: j}, nil
	}
	slug, _, err := ParseTicketID(ref)
	if err != nil {
		return planRef{}, invalid("tickets[%d].%s %q is neither the key of another row nor a ticket id; nothing was imported: give that row key %q, or name an existing ticket as <workspace>-<number>", i, field, clip(ref), clip(ref))
	}
	if slug != in.Workspace {
		return planRef{}, invalid("tickets[%d].%s '%s' is in workspace '%s', and relations stay inside one workspace ('%s'); nothing was imported: leave it out or import into '%s'", i, field, clip(ref), slug, in.Workspace, slug)
	}
	return planRef{row: -1, id: ref}, nil
}

// validatePlan checks keys and relations among the rows: every rule that
// needs no read of the store.
func (in *ImportTicketsInput) validatePlan() error {
	if !in.hasPlan() {
		return nil
	}
	if len(in.Tickets) > MaxPlanRows {
		return invalid("%d tickets given with keys or relations; such an import takes at most %d rows: split the plan, naming tickets of an earlier part by their ids", len(in.Tickets), MaxPlanRows)
	}
	seen := map[string]int{}
	for i, r := range in.Tickets {
		if r.Key == "" {
			continue
		}
		if err := validateRowKey(r.Key); err != nil {
			return invalid("tickets[%d].key: %s; nothing was imported", i, err.Error())
		}
		if j, dup := seen[r.Key]; dup {
			return invalid("tickets[%d].key %q is also the key of tickets[%d], and keys name one row each; nothing was imported: rename one of them", i, r.Key, j)
		}
		seen[r.Key] = i
	}
	g, err := in.planGraph()
	if err != nil {
		return err
	}
	for target, n := range g.children {
		if n > MaxRelations {
			return invalid("%s would get %d sub-tickets from this import, and a ticket has at most %d; nothing was imported: group some of them under a new sub-ticket", target, n, MaxRelations)
		}
	}
	for target, n := range g.blocks {
		if n > MaxRelations {
			return invalid("%s would block %d tickets of this import, and a ticket blocks at most %d; nothing was imported: let it block a parent ticket of them instead", target, n, MaxRelations)
		}
	}
	if err := in.checkBlockCycles(g); err != nil {
		return err
	}
	for i := range in.Tickets {
		if _, _, err := in.parentChain(g, i); err != nil {
			return err
		}
	}
	return nil
}

func validateRowKey(key string) error {
	if len(key) > maxKeyLength {
		return fmt.Errorf("%q is %d characters long; the limit is %d", clip(key), len(key), maxKeyLength)
	}
	if strings.IndexFunc(key, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')
	}) >= 0 {
		return fmt.Errorf("%q has characters outside a-z A-Z 0-9 . _ -", clip(key))
	}
	if _, _, err := ParseTicketID(key); err == nil {
		return fmt.Errorf("%q is shaped like a ticket id, so a reference to it would be ambiguous: choose a key that is not <workspace>-<number>", key)
	}
	return nil
}

// planGraph is the rows' relations, resolved.
type planGraph struct {
	parent    []*planRef  // per row
	blockedBy [][]planRef // per row
	children  map[string]int
	blocks    map[string]int
}

func (in ImportTicketsInput) planGraph() (planGraph, error) {
	keys := in.rowKeys()
	g := planGraph{parent: make([]*planRef, len(in.Tickets)), blockedBy: make([][]planRef, len(in.Tickets)),
		children: map[string]int{}, blocks: map[string]int{}}
	for i, r := range in.Tickets {
		if r.Parent != "" {
			ref, err := in.resolve(keys, i, "parent", r.Parent)
			if err != nil {
				return g, err
			}
			g.parent[i] = &ref
			g.children[ref.String()]++
		}
		if len(r.BlockedBy) > MaxRelations {
			return g, invalid("tickets[%d].blocked_by names %d tickets, and a ticket waits for at most %d; nothing was imported: make one parent ticket of some blockers and let it block this one", i, len(r.BlockedBy), MaxRelations)
		}
		for j, b := range r.BlockedBy {
			if k := slices.Index(r.BlockedBy[:j], b); k >= 0 {
				return g, invalid("tickets[%d].blocked_by names %q twice (at %d and %d); nothing was imported: list it once", i, clip(b), k, j)
			}
			ref, err := in.resolve(keys, i, "blocked_by", b)
			if err != nil {
				return g, err
			}
			g.blockedBy[i] = append(g.blockedBy[i], ref)
			g.blocks[ref.String()]++
		}
	}
	return g, nil
}

// checkBlockCycles refuses rows that block each other round in a circle.
func (in ImportTicketsInput) checkBlockCycles(g planGraph) error {
	const (
		unvisited = iota
		visiting
		done
	)
	state := make([]int, len(in.Tickets))
	var path []int
	var visit func(i int) error
	visit = func(i int) error {
		state[i] = visiting
		path = append(path, i)
		for _, b := range g.blockedBy[i] {
			if b.row < 0 {
				continue // an existing ticket blocks no row yet: no cycle through it
			}
			switch state[b.row] {
			case visiting:
				from := slices.Index(path, b.row)
				names := make([]string, 0, len(path)-from+1)
				for _, r := range append(path[from:], b.row) {
					names = append(names, fmt.Sprintf("tickets[%d]", r))
				}
				return invalid("rows block each other in a cycle (%s, each blocked by the next), so none could ever be ready; nothing was imported: remove one of those blocked_by entries", strings.Join(names, " → "))
			case unvisited:
				if err := visit(b.row); err != nil {
					return err
				}
			}
		}
		path = path[:len(path)-1]
		state[i] = done
		return nil
	}
	for i := range in.Tickets {
		if state[i] == unvisited {
			if err := visit(i); err != nil {
				return err
			}
		}
	}
	return nil
}

// parentChain walks up from row i through rows: how many levels of rows it
// spans (i included) and the existing ticket above them, if any.
func (in ImportTicketsInput) parentChain(g planGraph, i int) (int, string, error) {
	levels, cur := 1, i
	for g.parent[cur] != nil {
		up := *g.parent[cur]
		if up.row < 0 {
			return levels, up.id, nil
		}
		if up.row == i {
			return 0, "", invalid("tickets[%d] is its own ancestor through its parent rows (a cycle); nothing was imported: change one of those parent entries", i)
		}
		levels++
		if levels > MaxNesting {
			return 0, "", invalid("tickets[%d] would nest %d or more levels deep through its parent rows, and parents nest at most %d; nothing was imported: choose a parent higher up", i, levels, MaxNesting)
		}
		cur = up.row
	}
	return levels, "", nil
}

// checkPlanTargets judges the existing tickets a plan names: each must
// exist in the workspace (as the caller sees it), keep its relation limits
// with the rows added, and not nest the rows too deep.
func (s *Service) checkPlanTargets(ctx context.Context, p Principal, in ImportTicketsInput) error {
	if !in.hasPlan() {
		return nil
	}
	g, err := in.planGraph()
	if err != nil {
		return err
	}
	read := map[string]Relations{}
	get := func(i int, field, id string) (Relations, error) {
		if r, ok := read[id]; ok {
			return r, nil
		}
		r, err := s.readRelated(ctx, p, id)
		if ErrorCode(err) == CodeNotFound {
			return r, invalid("tickets[%d].%s '%s' is not a ticket of workspace '%s'; nothing was imported: call list_tickets to find ids, or name a row by its key", i, field, id, in.Workspace)
		}
		if err != nil {
			return r, err
		}
		read[id] = r
		return r, nil
	}
	for i := range in.Tickets {
		if ref := g.parent[i]; ref != nil && ref.row < 0 {
			r, err := get(i, "parent", ref.id)
			if err != nil {
				return err
			}
			if n := len(r.Children) + g.children[ref.String()]; n > MaxRelations {
				return invalid("tickets[%d].parent '%s' already has %d sub-tickets; with this import's it would have %d, and a ticket has at most %d; nothing was imported: group them under a new sub-ticket", i, ref.id, len(r.Children), n, MaxRelations)
			}
		}
		for _, ref := range g.blockedBy[i] {
			if ref.row >= 0 {
				continue
			}
			r, err := get(i, "blocked_by", ref.id)
			if err != nil {
				return err
			}
			if n := len(r.Blocks) + g.blocks[ref.String()]; n > MaxRelations {
				return invalid("tickets[%d].blocked_by '%s' already blocks %d tickets; with this import's it would block %d, and a ticket blocks at most %d; nothing was imported: let it block a parent ticket of them instead", i, ref.id, len(r.Blocks), n, MaxRelations)
			}
		}
	}
	// Depth: the rows' levels plus the existing ticket above them and its
	// own parents (at most MaxNesting reads each, remembered).
	depth := map[string]int{}
	for i := range in.Tickets {
		levels, top, err := in.parentChain(g, i)
		if err != nil || top == "" {
			if err != nil {
				return err
			}
			continue
		}
		d, ok := depth[top]
		if !ok {
			r, err := get(i, "parent", top)
			if err != nil {
				return err
			}
			for d = 1; r.Parent != nil && d <= MaxNesting; d++ {
				if r, err = get(i, "parent", r.Parent.ID); err != nil {
					return err
				}
			}
			depth[top] = d
		}
		if total := levels + d; total > MaxNesting {
			return invalid("tickets[%d] would nest %d levels deep under '%s', and parents nest at most %d; nothing was imported: choose a parent higher up", i, total, top, MaxNesting)
		}
	}
	return nil
}
