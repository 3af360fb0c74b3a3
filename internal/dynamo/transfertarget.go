package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// The puts of an import build their items with the same builders as the
// store's writes (ticketItem, tagItem, noteItem, eventItem, recordItems),
// so an imported ticket has every index attribute and tag item a created
// one has. Each put is one conditional write: the item only if absent,
// with what it adds to the workspace's counts in the same transaction. A
// refused condition returns the stored item (ALL_OLD), which the put
// compares with its own to tell "already there" from a collision.

// BoardEmpty reports whether the table holds no ticket and no request
// record.
func (s *Store) BoardEmpty(ctx context.Context) (bool, error) {
	if s.db.Scan == nil {
		return false, errors.New("dynamo: this build cannot import a board (built with -tags lambda); run it with the local build")
	}
	empty := true
	errFound := errors.New("found")
	err := s.eachPage(ctx, nil, &dynamodb.ScanInput{
		TableName:                 aws.String(s.table),
		FilterExpression:          aws.String("#type IN (:ticket, :request)"),
		ExpressionAttributeNames:  map[string]string{"#type": attrType},
		ExpressionAttributeValues: map[string]types.AttributeValue{":ticket": str(typeTicket), ":request": str(typeRequest)},
		ConsistentRead:            aws.Bool(true),
	}, func(items []map[string]types.AttributeValue) error {
		if len(items) > 0 {
			empty = false
			return errFound
		}
		return nil
	})
	if errors.Is(err, errFound) {
		err = nil
	}
	return empty, err
}

var absent = map[string]string{"#pk": attrPK}

// PutWorkspace puts a workspace with its counter and no counts, if absent
// or never used (counter at 1, no counts: a fresh table's seeded
// workspace).
func (s *Store) PutWorkspace(ctx context.Context, w board.TransferredWorkspace) (board.PutOutcome, error) {
	// Both stores keep the same range of numbers, so a board moves back.
	if err := board.ValidateNextNumber(w.Next); err != nil {
		return 0, err
	}
	item := workspaceItem(board.Workspace{Slug: w.Slug, Name: w.Name, AIPolicy: w.AIPolicy})
	item[attrNextNum] = num(w.Next)
	// A workspace at 1 never held a ticket (a fresh table's seeded one):
	// it takes the moved one's settings and counter, unless they are the
	// same already.
	cond := "attribute_not_exists(#pk) OR #next = :one"
	names := map[string]string{"#pk": attrPK, "#next": attrNextNum}
	values := map[string]types.AttributeValue{":one": num(1)}
	if w.Next == 1 {
		cond = "attribute_not_exists(#pk) OR (#next = :one AND (#name <> :name OR #policy <> :policy))"
		names["#name"], names["#policy"] = attrName, attrPolicy
		values[":name"], values[":policy"] = str(w.Name), str(string(w.AIPolicy))
	}
	c, err := s.commit(ctx, []types.TransactWriteItem{s.put(item, cond, names, values, true)})
	if err != nil {
		return 0, err
	}
	if c == nil {
		s.cache.forget(w.Slug)
		// A counter item made before (a lease on the seeded workspace)
		// moves up with it.
		if err := s.raiseCounter(ctx, w.Slug, w.Next); err != nil {
			return 0, err
		}
		return board.Added, nil
	}
	old, err := s.oldItem(ctx, c, 0, workspaceKey(w.Slug))
	if err != nil {
		return 0, err
	}
	have := decodeWorkspace(old)
	if !board.SameWorkspace(board.TransferredWorkspace{Slug: have.Workspace.Slug, Name: have.Workspace.Name, AIPolicy: have.Workspace.AIPolicy}, w) {
		return board.Collision, nil
	}
	if have.Next < w.Next {
		// A resumed import: raise the counter as a first run would have.
		if err := s.raiseNext(ctx, w.Slug, w.Next); err != nil {
			return 0, err
		}
	}
	return board.AlreadyThere, nil
}

// oldItem is the stored item a refused condition returned, read again
// when the endpoint did not return it.
func (s *Store) oldItem(ctx context.Context, c *cancellation, i int, k map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	if old := c.old[i]; old != nil {
		return old, nil
	}
	old, err := s.getItem(ctx, k)
	if err == nil && old == nil {
		err = fmt.Errorf("dynamo: item %s %s refused a write but is not there", getS(k, attrPK), getS(k, attrSK))
	}
	return old, err
}

// raiseNext moves a workspace's counter up to next, never down, on the
// workspace item (where a counter item not yet made starts) and on the
// counter item: ErrNotFound when the workspace is missing.
func (s *Store) raiseNext(ctx context.Context, slug string, next int64) error {
	done, err := s.exclusiveWrite(ctx)
	if err != nil {
		return err
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                           aws.String(s.table),
		Key:                                 workspaceKey(slug),
		UpdateExpression:                    aws.String("SET #next = :next"),
		ConditionExpression:                 aws.String("attribute_exists(#pk) AND #next < :next"),
		ExpressionAttributeNames:            map[string]string{"#pk": attrPK, "#next": attrNextNum},
		ExpressionAttributeValues:           map[string]types.AttributeValue{":next": num(next)},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	done()
	var ccf *types.ConditionalCheckFailedException
	switch {
	case err == nil:
	case !errors.As(err, &ccf):
		return err
	case len(ccf.Item) == 0:
		return board.ErrNotFound
	}
	// Raised now, or at or above next already.
	return s.raiseCounter(ctx, slug, next)
}

// Positions in a ticket's put.
const (
	putTicketAt = iota
	putWorkspaceAt
	putCountAt
)

// PutTicket puts a ticket with its tag items and counts it under its
// status on a count shard, with a check that its workspace exists, in one
// transaction, if absent. The workspace's counter is raised above the
// ticket's number first (a gap a failed put leaves is harmless; a number
// given twice would not be).
func (s *Store) PutTicket(ctx context.Context, t board.Ticket) (board.PutOutcome, error) {
	if err := board.ValidateTicketNumber(t.Number); err != nil {
		return 0, err
	}
	if !s.counterAtLeast(t.Workspace, t.Number+1) {
		if err := s.raiseNext(ctx, t.Workspace, t.Number+1); err != nil {
			return 0, err
		}
	}
	ticket, err := s.newTicket(t, true)
	if err != nil {
		return 0, err
	}
	shard, release, err := s.takeSlot(ctx, t.Workspace)
	if err != nil {
		return 0, err
	}
	defer release()
	items := []types.TransactWriteItem{
		putTicketAt:    ticket.ticket,
		putWorkspaceAt: s.mustExist(workspaceKey(t.Workspace)),
		putCountAt:     s.countAdd(t.Workspace, shard, moved("", t.Status)),
	}
	items = append(items, ticket.tags...)
	c, err := s.commit(ctx, items)
	switch {
	case err != nil:
		return 0, err
	case c == nil:
		s.cache.countsChanged(t.Workspace)
		return board.Added, s.indexMoved(ctx, t)
	case c.failedAt(putWorkspaceAt):
		return 0, board.ErrNotFound
	}
	old, err := s.oldItem(ctx, c, putTicketAt, ticketKey(t.ID))
	if err != nil {
		return 0, err
	}
	have, err := decodeTicket(old)
	if err != nil {
		return 0, err
	}
	same := board.SameTicket(have, t)
	if same {
		// An import resumed after a failure may have put the ticket but
		// not its words: they are written again (the same items).
		return board.AlreadyThere, s.indexMoved(ctx, t)
	}
	return board.Collision, nil
}

// indexMoved writes every word item of a moved ticket (the put carries
// none: a moved board may hold thousands of tickets per transaction's
// worth of words), with BatchWriteItem. A failure is returned, so the
// import stops and a rerun writes them again.
func (s *Store) indexMoved(ctx context.Context, t board.Ticket) error {
	return s.applyWords(ctx, diffWords(nil, t, 0))
}

// putWithParent puts item if absent, in one transaction with a check that
// parent exists (ErrNotFound otherwise); same compares the stored item.
func (s *Store) putWithParent(ctx context.Context, item, parent map[string]types.AttributeValue, same func(old map[string]types.AttributeValue) (bool, error)) (board.PutOutcome, error) {
	c, err := s.commit(ctx, []types.TransactWriteItem{
		s.put(item, "attribute_not_exists(#pk)", absent, nil, true),
		{ConditionCheck: &types.ConditionCheck{
			TableName:                aws.String(s.table),
			Key:                      parent,
			ConditionExpression:      aws.String("attribute_exists(#pk)"),
			ExpressionAttributeNames: absent,
		}},
	})
	switch {
	case err != nil:
		return 0, err
	case c == nil:
		return board.Added, nil
	case !c.failedAt(0):
		return 0, board.ErrNotFound
	}
	old, err := s.oldItem(ctx, c, 0, key(getS(item, attrPK), getS(item, attrSK)))
	if err != nil {
		return 0, err
	}
	ok, err := same(old)
	return sameOutcome(ok), err
}

// PutNote puts a note of a stored ticket, if absent.
func (s *Store) PutNote(ctx context.Context, n board.Note) (board.PutOutcome, error) {
	item, err := noteItem(n)
	if err != nil {
		return 0, err
	}
	return s.putWithParent(ctx, item, ticketKey(n.TicketID), func(old map[string]types.AttributeValue) (bool, error) {
		have, err := decodeDoc[board.Note](old)
		return board.SameNote(have, n), err
	})
}

// PutEvent puts an event where the store keeps it (the ticket's partition
// or the workspace's), with the events index keys, if absent.
func (s *Store) PutEvent(ctx context.Context, e board.Event) (board.PutOutcome, error) {
	item, err := eventItem(e)
	if err != nil {
		return 0, err
	}
	return s.putWithParent(ctx, item, workspaceKey(e.Workspace), func(old map[string]types.AttributeValue) (bool, error) {
		have, err := decodeDoc[board.Event](old)
		return board.SameEvent(have, e), err
	})
}

// PutRequest puts a completed record (with its result part when it has
// one) unless a record unexpired at now holds its key.
func (s *Store) PutRequest(ctx context.Context, r ledger.Record, now time.Time) (board.PutOutcome, error) {
	rec, part, err := recordItems(r, "")
	if err != nil {
		return 0, err
	}
	outcome := board.Added
	_, err = s.transact(ctx, txn{
		what: "importing request record " + r.Key.RequestID,
		build: func(string) ([]types.TransactWriteItem, error) {
			cond, names, values := recordCondition(now)
			items := []types.TransactWriteItem{s.put(rec, cond, names, values, true)}
			if part != nil {
				items = append(items, s.put(part, "", nil, nil, false))
			}
			return items, nil
		},
		judge: func(ctx context.Context, c *cancellation) (step, error) {
			old, err := s.oldItem(ctx, c, 0, requestKey(r.Key))
			if err != nil {
				return stepDone, err
			}
			have, _, err := s.liveRecord(ctx, old, now)
			if err != nil || have == nil {
				return stepAgain, err // expired between the write and the read: the key is free again
			}
			outcome = sameOutcome(board.SameRecord(*have, r))
			return stepDone, nil
		},
	})
	if err != nil {
		return 0, err
	}
	return outcome, nil
}

func sameOutcome(same bool) board.PutOutcome {
	if same {
		return board.AlreadyThere
	}
	return board.Collision
}
