package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// ListWorkspaces is one Query of the workspaces' partition, which holds
// each workspace item followed by its count shards (countshards.go): the
// counts are their sums, exact as of the read.
func (s *Store) ListWorkspaces(ctx context.Context) ([]board.Workspace, error) {
	since := s.cache.epoch()
	items, err := s.queryAll(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pkWorkspaces)},
		ConsistentRead:            aws.Bool(true),
	}, 0)
	if err != nil {
		return nil, err
	}
	ws := decodeWorkspaces(items)
	out := make([]board.Workspace, 0, len(ws))
	for _, w := range ws {
		s.cache.remember(w, since)
		out = append(out, w.Workspace)
	}
	return out, nil
}

// GetWorkspace is one consistent Query of the workspace with its count
// shards.
func (s *Store) GetWorkspace(ctx context.Context, slug string) (board.Workspace, error) {
	since := s.cache.epoch()
	w, ok, err := s.readWorkspace(ctx, slug)
	if err != nil {
		return board.Workspace{}, err
	}
	if !ok {
		return board.Workspace{}, board.ErrNotFound
	}
	s.cache.remember(w, since)
	return w.Workspace, nil
}

// SetWorkspacePolicy changes the policy and appends the event in one
// transaction. Other instances see the change on their next write at once
// (every AI write reads the policy consistently when it starts:
// policyreads.go) and on reads within PolicyTTL.
func (s *Store) SetWorkspacePolicy(ctx context.Context, slug string, policy board.AIPolicy, ev board.Event) error {
	event, err := eventItem(ev)
	if err != nil {
		return err
	}
	items := []types.TransactWriteItem{
		{Update: &types.Update{
			TableName:                 aws.String(s.table),
			Key:                       workspaceKey(slug),
			UpdateExpression:          aws.String("SET #policy = :policy"),
			ConditionExpression:       aws.String("attribute_exists(#pk)"),
			ExpressionAttributeNames:  map[string]string{"#policy": attrPolicy, "#pk": attrPK},
			ExpressionAttributeValues: map[string]types.AttributeValue{":policy": str(string(policy))},
		}},
		s.put(event, "", nil, nil, false),
	}
	c, err := s.commit(ctx, items)
	switch {
	case err != nil:
		return err
	case c.failedAt(0):
		return board.ErrNotFound
	}
	s.cache.setPolicy(slug, policy)
	return nil
}
