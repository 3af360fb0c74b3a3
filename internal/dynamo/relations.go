package dynamo

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// A relation is two items, one in each ticket's relation partition
// (L#<ticket id>), keyed <end>#<the other's zero-padded number>: the
// blocker holds blocks#…, the blocked ticket blocked_by#…, a parent
// parent_of#…, a sub-ticket child_of#…. One Query of a partition reads a
// ticket's relations in number order; both items are written in one
// transaction.
//
// Readiness is kept on the blocked ticket: open_blockers counts its
// blockers that are not done. A relate or unrelate changes it in its own
// transaction; a blocker's move to or from done changes it on each of the
// (at most 50) tickets it blocks, in the move's transaction, each put at
// its version + 1 and placed in or out of the claimable index (claimable).

const (
	pkRelationsPrefix = "L#"
	typeRelation      = "relation"
	// attrOther is the id of a relation item's other ticket.
	attrOther = "other"
	// attrOpenBlockers is a ticket's count of blockers not done; absent
	// when 0.
	attrOpenBlockers = "open_blockers"
)

func relationKey(id, end string, otherNumber int64) map[string]types.AttributeValue {
	return key(pkRelationsPrefix+id, end+"#"+paddedNumber(otherNumber))
}

func relationItem(t board.Ticket, end string, other board.Ticket) map[string]types.AttributeValue {
	item := relationKey(t.ID, end, other.Number)
	item[attrType] = str(typeRelation)
	item[attrOther] = str(other.ID)
	return item
}

// relationEnds names kind from each end, as the items' sort keys do.
func relationEnds(kind board.RelationKind) (from, to string) {
	if kind == board.RelationParent {
		return board.EndParent, board.EndChild
	}
	return board.EndBlocks, board.EndBlockedBy
}

// relationIDs reads the ids at one end (or every end, "") of a ticket's
// relations, in number order: at most 3×(MaxRelations+1)+1 items.
func (s *Store) relationIDs(ctx context.Context, id, end string) (map[string][]string, error) {
	names := map[string]string{"#pk": attrPK}
	values := map[string]types.AttributeValue{":pk": str(pkRelationsPrefix + id)}
	cond := "#pk = :pk"
	if end != "" {
		names["#sk"], values[":end"] = attrSK, str(end+"#")
		cond += " AND begins_with(#sk, :end)"
	}
	items, err := s.queryAll(ctx, &dynamodb.QueryInput{
		TableName: aws.String(s.table), KeyConditionExpression: aws.String(cond),
		ExpressionAttributeNames: names, ExpressionAttributeValues: values, ConsistentRead: aws.Bool(true),
	}, 0)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, it := range items {
		e, _, _ := strings.Cut(getS(it, attrSK), "#")
		out[e] = append(out[e], getS(it, attrOther))
	}
	return out, nil
}

// ReadRelations reads a ticket with its policy, its relation items, and
// the tickets at their other ends.
func (s *Store) ReadRelations(ctx context.Context, id string) (board.Relations, error) {
	var r board.Relations
	slug, _, err := board.ParseTicketID(id)
	if err != nil {
		return r, board.ErrNotFound
	}
	found, err := s.batchGet(ctx, []map[string]types.AttributeValue{ticketKey(id), workspaceKey(slug)})
	if err != nil {
		return r, err
	}
	if found[0] == nil || found[1] == nil {
		return r, board.ErrNotFound
	}
	if r.Ticket, err = decodeTicket(found[0]); err != nil {
		return r, err
	}
	r.Policy = decodeWorkspace(found[1]).Workspace.AIPolicy
	return r, s.relationsInto(ctx, &r)
}

// RelationsOf reads the tickets related to t: one Query, and a
// BatchGetItem of the related tickets when there are any.
func (s *Store) RelationsOf(ctx context.Context, t board.Ticket) (board.Relations, error) {
	r := board.Relations{Ticket: t}
	return r, s.relationsInto(ctx, &r)
}

// relationsInto reads r.Ticket's relation items and the tickets at their
// other ends into r.
func (s *Store) relationsInto(ctx context.Context, r *board.Relations) error {
	ends, err := s.relationIDs(ctx, r.Ticket.ID, "")
	if err != nil {
		return err
	}
	var keys []map[string]types.AttributeValue
	for _, ids := range ends {
		for _, o := range ids {
			keys = append(keys, ticketKey(o))
		}
	}
	others := map[string]board.Ticket{}
	for start := 0; start < len(keys); start += batchGetMax {
		items, err := s.batchGet(ctx, keys[start:min(start+batchGetMax, len(keys))])
		if err != nil {
			return err
		}
		for _, it := range items {
			if it == nil {
				continue // deleted meanwhile
			}
			t, err := decodeTicket(it)
			if err != nil {
				return err
			}
			others[t.ID] = t
		}
	}
	related := func(ids []string) []board.RelatedTicket {
		out := []board.RelatedTicket{}
		for _, o := range ids {
			if t, ok := others[o]; ok {
				out = append(out, board.RelatedTicket{ID: t.ID, Title: t.Title, Status: t.Status})
			}
		}
		return out
	}
	r.Blocks, r.BlockedBy, r.Children = related(ends[board.EndBlocks]), related(ends[board.EndBlockedBy]), related(ends[board.EndParent])
	if p := related(ends[board.EndChild]); len(p) > 0 {
		r.Parent = &p[0]
	}
	return nil
}

// SaveRelation commits a relate or unrelate in one transaction: the
// record, both tickets at their new versions (the blocked one with its
// count of open blockers changed), both relation items and both events,
// and a version check of every ticket the rules read.
func (s *Store) SaveRelation(ctx context.Context, tx board.RelationTx) (ledger.Record, error) {
	now := tx.Request.CreatedAt
	if tx.AllowedPolicies != nil {
		if err := s.writePolicy(ctx, tx.Request, tx.From.Workspace, tx.AllowedPolicies); err != nil {
			return ledger.Record{}, err
		}
	} else {
		s.policyReads.take(tx.Request.Key)
	}
	txid := newTxID()
	rec, part, err := recordItems(tx.Request, txid)
	if err != nil {
		return ledger.Record{}, err
	}
	cond, names, values := recordCondition(now)
	items := []types.TransactWriteItem{s.put(rec, cond, names, values, true)}
	versionCond := "attribute_exists(#pk) AND #v = :v"
	check := func(id string, version int64) types.TransactWriteItem {
		return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: aws.String(s.table), Key: ticketKey(id), ConditionExpression: aws.String(versionCond),
			ExpressionAttributeNames:  map[string]string{"#pk": attrPK, "#v": attrVersion},
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": num(version)},
		}}
	}
	if tx.Link {
		to := tx.ToAfter
		if tx.Kind == board.RelationBlocks && tx.From.Status != board.StatusDone {
			if tx.Add {
				to.OpenBlockers++
			} else {
				to.OpenBlockers = max(to.OpenBlockers-1, 0)
			}
		}
		for _, c := range []struct{ after, before board.Ticket }{{tx.FromAfter, tx.From}, {to, tx.To}} {
			item, err := ticketItem(c.after)
			if err != nil {
				return ledger.Record{}, err
			}
			items = append(items, s.put(item, versionCond, map[string]string{"#pk": attrPK, "#v": attrVersion},
				map[string]types.AttributeValue{":v": num(c.before.Version)}, false))
		}
		fromEnd, toEnd := relationEnds(tx.Kind)
		if tx.Add {
			items = append(items, s.put(relationItem(tx.From, fromEnd, tx.To), "", nil, nil, false),
				s.put(relationItem(tx.To, toEnd, tx.From), "", nil, nil, false))
		} else {
			for _, k := range []map[string]types.AttributeValue{relationKey(tx.From.ID, fromEnd, tx.To.Number), relationKey(tx.To.ID, toEnd, tx.From.Number)} {
				items = append(items, types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(s.table), Key: k}})
			}
		}
		for _, ev := range []board.Event{tx.FromEvent, tx.ToEvent} {
			item, err := eventItem(ev)
			if err != nil {
				return ledger.Record{}, err
			}
			items = append(items, s.put(item, "", nil, nil, false))
		}
	} else {
		items = append(items, check(tx.From.ID, tx.From.Version), check(tx.To.ID, tx.To.Version))
	}
	for id, v := range tx.Checked {
		items = append(items, check(id, v))
	}
	if part != nil {
		items = append(items, s.put(part, "", nil, nil, false))
	}
	c, err := s.commit(ctx, items)
	switch {
	case err != nil:
		return ledger.Record{}, err
	case c == nil:
		return tx.Request, nil
	case c.failedAt(0):
		verdict, old, err := s.existingRecord(ctx, tx.Request.Key, c.old[0], now, writeAttempts{txids: []string{txid}})
		if err != nil {
			return ledger.Record{}, err
		}
		switch verdict {
		case recordOurs:
			return *old, nil
		case recordTaken:
			return ledger.Record{}, &ledger.ExistsError{Record: *old}
		}
	}
	// A ticket changed since the rules read it (or an expired record
	// stood in the way): the use case reads and judges again.
	return ledger.Record{}, board.ErrVersionConflict
}

// dependents are the tickets a blocker's move to or from done changes:
// each ticket it blocks, at its next version with its count of open
// blockers moved by one. None when the move does not cross done.
func (s *Store) dependents(ctx context.Context, before, after board.Ticket) ([]types.TransactWriteItem, error) {
	wasDone, isDone := before.Status == board.StatusDone, after.Status == board.StatusDone
	if wasDone == isDone {
		return nil, nil
	}
	ends, err := s.relationIDs(ctx, before.ID, board.EndBlocks)
	if err != nil {
		return nil, err
	}
	ids := ends[board.EndBlocks]
	if len(ids) > board.MaxRelations {
		return nil, fmt.Errorf("dynamo: ticket %s blocks %d tickets, more than %d", before.ID, len(ids), board.MaxRelations)
	}
	keys := make([]map[string]types.AttributeValue, len(ids))
	for i, id := range ids {
		keys[i] = ticketKey(id)
	}
	found, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	var items []types.TransactWriteItem
	for _, it := range found {
		if it == nil {
			continue
		}
		t, err := decodeTicket(it)
		if err != nil {
			return nil, err
		}
		v := t.Version
		t.Version++
		if isDone {
			t.OpenBlockers = max(t.OpenBlockers-1, 0)
		} else {
			t.OpenBlockers++
		}
		item, err := ticketItem(t)
		if err != nil {
			return nil, err
		}
		items = append(items, s.put(item, "attribute_exists(#pk) AND #v = :v", map[string]string{"#pk": attrPK, "#v": attrVersion},
			map[string]types.AttributeValue{":v": num(v)}, false))
	}
	return items, nil
}

// failedIn reports whether a condition failed on an item in [from, to).
func (c *cancellation) failedIn(from, to int) bool {
	for i := from; i < to; i++ {
		if c.failedAt(i) {
			return true
		}
	}
	return false
}

// readyFilter is a FilterExpression keeping tickets ready for work: open,
// with no open blocker counted.
func readyFilter(names map[string]string, values map[string]types.AttributeValue) string {
	names["#st"], names["#ob"] = attrStatus, attrOpenBlockers
	values[":cand"], values[":wai"], values[":zero"] = str(string(board.StatusCandidate)), str(string(board.StatusWaitingAI)), num(0)
	return "(#st = :cand OR #st = :wai) AND (attribute_not_exists(#ob) OR #ob = :zero)"
}

// listChildren lists a parent's sub-tickets, newest first: at most
// MaxRelations of them, read by key, with every other filter (a search's
// words included) checked on them.
func (s *Store) listChildren(ctx context.Context, q board.TicketQuery, b *pageBuilder) error {
	ends, err := s.relationIDs(ctx, q.Parent, board.EndParent)
	if err != nil {
		return err
	}
	ids := ends[board.EndParent]
	var search *board.Search
	if q.Query != "" {
		parsed, err := board.ParseSearch(q.Query)
		if err != nil {
			return err
		}
		search = &parsed
	}
	var keys []map[string]types.AttributeValue
	for i := len(ids) - 1; i >= 0; i-- { // newest (highest number) first
		_, n, err := board.ParseTicketID(ids[i])
		if err != nil || (q.Before > 0 && n >= q.Before) {
			continue
		}
		keys = append(keys, ticketKey(ids[i]))
	}
	match := func(t board.Ticket) bool { _, ok := q.Matches(t, search); return ok && t.Workspace == q.Workspace }
	return s.addByKey(ctx, keys, match, b)
}
