package operations

import (
	"context"
	"fmt"
	"net/http"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The relation writes: blocks and parent links between two tickets of one
// workspace.

func relateTickets() Operation {
	return define(Operation{Kind: Write,
		Tool: &Tool{Name: board.ToolRelateTickets, Title: "Relate tickets",
			Description: fmt.Sprintf("Link two tickets of one workspace to write down a plan. kind blocks: id must be done before other is ready (claim_next hands out only ready tickets: open, with every blocker done). "+
				"kind parent: other becomes a sub-ticket of id; get_ticket shows a ticket's children and how many are done. "+
				"Refused (conflict, saying which rule and what to do) when the link would close a cycle, give a ticket a second parent, nest parents more than %d deep, or pass %d links of a kind on one ticket. "+
				"Relating what is already related changes nothing (changed: false). To split work: create the sub-tickets, relate each to the parent, relate blockers, then claim_next.",
				board.MaxNesting, board.MaxRelations) + WriteNote},
		Route: &Route{Method: "POST", Pattern: "/tickets/{id}/relations", ID: "relateTickets", Status: 200, Path: map[string]string{"id": "id"}, Body: true,
			Problems: []int{http.StatusForbidden, http.StatusNotFound},
			Summary:  "Relate two tickets",
			Description: fmt.Sprintf("Adds a relation (as relate_tickets): kind blocks (the ticket blocks other) or parent (the ticket is other's parent), both in one workspace. "+
				"409 when it would close a cycle, give other a second parent, nest parents more than %d deep, or pass %d links of a kind; the problem says which rule and what to do.",
				board.MaxNesting, board.MaxRelations)}},
		func(s *board.Service) func(context.Context, board.RelateInput) (board.RelationResult, error) {
			return s.RelateTickets
		})
}

func unrelateTickets() Operation {
	return define(Operation{Kind: Write,
		Tool: &Tool{Name: board.ToolUnrelateTickets, Title: "Unrelate tickets",
			Description: "Remove a link relate_tickets added, with the same id, kind and other (kind blocks: id blocks other; kind parent: id is other's parent). Removing a link that is not there changes nothing (changed: false)." + WriteNote},
		Route: &Route{Method: "DELETE", Pattern: "/tickets/{id}/relations/{kind}/{other}", ID: "unrelateTickets", Status: 200,
			Path:     map[string]string{"id": "id", "kind": "kind", "other": "other"},
			Problems: []int{http.StatusForbidden, http.StatusNotFound},
			Summary:  "Remove a relation",
			Description: "Removes the relation (as unrelate_tickets): kind blocks (the ticket blocks other) or parent (the ticket is other's parent). " +
				"Removing one that is not there answers changed: false. Exactly once per Idempotency-Key."}},
		func(s *board.Service) func(context.Context, board.RelateInput) (board.RelationResult, error) {
			return s.UnrelateTickets
		})
}
