package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A moved relation is written as a relate writes it, less the record and
// the events (the history moves on its own lines): both relation items and,
// for a blocker not done, the blocked ticket's count of open blockers
// raised and its place in the claimable index taken away. The tickets keep
// their versions: they arrive exactly as they were.

// TransferRelations streams the relations of a workspace's tickets once
// each, from the end that holds them (blocks, parent_of): one Query of each
// ticket's relation partition, so an export reads a workspace's relations
// with one Query per ticket. Order: by that ticket's number, blocks before
// parent, then by the other end's number.
func (s *Store) TransferRelations(ctx context.Context, workspace string, fn func(board.TransferredRelation) error) error {
	return s.TransferTickets(ctx, workspace, func(t board.Ticket) error {
		ends, err := s.relationIDs(ctx, t.ID, "")
		if err != nil {
			return err
		}
		for _, e := range []struct {
			end  string
			kind board.RelationKind
		}{{board.EndBlocks, board.RelationBlocks}, {board.EndParent, board.RelationParent}} {
			for _, other := range ends[e.end] {
				if err := fn(board.TransferredRelation{Kind: e.kind, From: t.ID, To: other}); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// Positions in a moved relation's transaction.
const (
	putRelationFromAt = iota
	putRelationToAt
	putRelationBlockerAt
	putRelationBlockedAt
)

// PutRelation stores a moved relation between two stored tickets, if
// absent, in one transaction: both relation items, a check that the
// holding ticket is still in the status read, and the other ticket's
// count of open blockers (or a check that it exists). A status changed
// meanwhile is read again.
func (s *Store) PutRelation(ctx context.Context, r board.TransferredRelation) (board.PutOutcome, error) {
	for attempt := 0; attempt < maxAttempts; attempt++ {
		found, err := s.batchGet(ctx, []map[string]types.AttributeValue{ticketKey(r.From), ticketKey(r.To)})
		if err != nil {
			return 0, err
		}
		if found[0] == nil || found[1] == nil {
			return 0, board.ErrNotFound
		}
		from, err := decodeTicket(found[0])
		if err != nil {
			return 0, err
		}
		to, err := decodeTicket(found[1])
		if err != nil {
			return 0, err
		}
		fromEnd, toEnd := relationEnds(r.Kind)
		items := []types.TransactWriteItem{
			putRelationFromAt: s.put(relationItem(from, fromEnd, to), "attribute_not_exists(#pk)", absent, nil, false),
			putRelationToAt:   s.put(relationItem(to, toEnd, from), "attribute_not_exists(#pk)", absent, nil, false),
			putRelationBlockerAt: {ConditionCheck: &types.ConditionCheck{
				TableName: aws.String(s.table), Key: ticketKey(from.ID),
				ConditionExpression:       aws.String("#st = :st"),
				ExpressionAttributeNames:  map[string]string{"#st": attrStatus},
				ExpressionAttributeValues: map[string]types.AttributeValue{":st": str(string(from.Status))},
			}},
		}
		if r.Kind == board.RelationBlocks && from.Status != board.StatusDone {
			// An open blocker: the blocked ticket counts it, and is put
			// again at the same version, which places it out of the
			// claimable index (claimable).
			blocked := to
			blocked.OpenBlockers++
			item, err := ticketItem(blocked)
			if err != nil {
				return 0, err
			}
			sameBlockers := "#ob = :ob" // the count read; absent when 0
			if to.OpenBlockers == 0 {
				sameBlockers = "(attribute_not_exists(#ob) OR #ob = :ob)"
			}
			items = append(items, s.put(item, "attribute_exists(#pk) AND #v = :v AND "+sameBlockers,
				map[string]string{"#pk": attrPK, "#v": attrVersion, "#ob": attrOpenBlockers},
				map[string]types.AttributeValue{":v": num(to.Version), ":ob": num(int64(to.OpenBlockers))}, false))
		} else {
			items = append(items, s.mustExist(ticketKey(to.ID)))
		}
		c, err := s.commit(ctx, items)
		switch {
		case err != nil:
			return 0, err
		case c == nil:
			return board.Added, nil
		case c.failedAt(putRelationFromAt) || c.failedAt(putRelationToAt):
			// Both ends are written together, and an end's key names
			// the relation: it is there.
			return board.AlreadyThere, nil
		}
		// A ticket's status changed, or a ticket went, since the read:
		// read again.
	}
	return 0, fmt.Errorf("dynamo: relation %s: its tickets kept changing while it was written", r)
}
