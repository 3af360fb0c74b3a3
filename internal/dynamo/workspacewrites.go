package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// CreateWorkspace is one transaction: the request record (item 0), the new
// workspace item on the condition that the slug is free (item 1), its
// counter item (numbers.go), the event.
func (s *Store) CreateWorkspace(ctx context.Context, tx board.WorkspaceTx) (ledger.Record, error) {
	item := workspaceItem(tx.Workspace)
	put := s.put(item, "attribute_not_exists(#pk)", map[string]string{"#pk": attrPK}, nil, false)
	rec, err := s.workspaceWrite(ctx, tx, put, board.ErrExists, s.newCounter(tx.Workspace.Slug, 1))
	if err == nil {
		s.cache.remember(workspaceState{Workspace: tx.Workspace, Next: 1}, s.cache.epoch())
	}
	return rec, err
}

// UpdateWorkspace is one transaction: the request record, the workspace's
// name and policy on the condition that it exists, the event. Without an
// event nothing changes and only the record is written.
func (s *Store) UpdateWorkspace(ctx context.Context, tx board.WorkspaceTx) (ledger.Record, error) {
	var change *types.TransactWriteItem
	if tx.Event != nil {
		change = &types.TransactWriteItem{Update: &types.Update{
			TableName:                 aws.String(s.table),
			Key:                       workspaceKey(tx.Workspace.Slug),
			UpdateExpression:          aws.String("SET #name = :name, #policy = :policy"),
			ConditionExpression:       aws.String("attribute_exists(#pk)"),
			ExpressionAttributeNames:  map[string]string{"#name": attrName, "#policy": attrPolicy, "#pk": attrPK},
			ExpressionAttributeValues: map[string]types.AttributeValue{":name": str(tx.Workspace.Name), ":policy": str(string(tx.Workspace.AIPolicy))},
		}}
	}
	var item types.TransactWriteItem
	if change != nil {
		item = *change
	}
	rec, err := s.workspaceWrite(ctx, tx, item, board.ErrNotFound)
	if err == nil && change != nil {
		s.cache.setPolicy(tx.Workspace.Slug, tx.Workspace.AIPolicy)
	}
	return rec, err
}

// workspaceWrite commits record + change (when it is not empty) + event +
// result part + more, and maps a failed condition on the change to refused.
func (s *Store) workspaceWrite(ctx context.Context, tx board.WorkspaceTx, change types.TransactWriteItem, refused error, more ...types.TransactWriteItem) (ledger.Record, error) {
	now := tx.Request.CreatedAt
	unlock, err := s.locks.lock(ctx, "workspace\x00"+tx.Workspace.Slug)
	if err != nil {
		return ledger.Record{}, err
	}
	defer unlock()
	var tries writeAttempts
	var replay *ledger.Record
	changeAt := 0
	_, err = s.transact(ctx, txn{
		what: "writing workspace " + tx.Workspace.Slug,
		build: func(txid string) ([]types.TransactWriteItem, error) {
			tries.txids = append(tries.txids, txid)
			rec, part, err := recordItems(tx.Request, txid)
			if err != nil {
				return nil, err
			}
			cond, names, values := recordCondition(now)
			items := []types.TransactWriteItem{s.put(rec, cond, names, values, true)}
			if change.Put != nil || change.Update != nil {
				changeAt = len(items)
				items = append(items, change)
			}
			if tx.Event != nil {
				ev, err := eventItem(*tx.Event)
				if err != nil {
					return nil, err
				}
				items = append(items, s.put(ev, "", nil, nil, false))
			}
			if part != nil {
				items = append(items, s.put(part, "", nil, nil, false))
			}
			return append(items, more...), nil
		},
		judge: func(ctx context.Context, c *cancellation) (step, error) {
			switch {
			case c.failedAt(0):
				old, _, next, err := s.ownRecord(ctx, tx.Request.Key, c.old[0], now, tries)
				replay = old
				return next, err // expired meanwhile: write again
			case changeAt > 0 && c.failedAt(changeAt):
				return stepDone, refused
			}
			return stepBackoff, nil
		},
	})
	switch {
	case err != nil:
		return ledger.Record{}, err
	case replay != nil:
		return *replay, nil
	}
	return tx.Request, nil
}
