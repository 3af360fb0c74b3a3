package dynamo

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The two updates API tokens and OAuth grants share: a revocation and a
// throttled "last used" stamp, each one conditional UpdateItem.

// revokeItem sets revoked_at unless it is set already (the first
// revocation is the one kept); an absent item is board.ErrNotFound.
func (s *Store) revokeItem(ctx context.Context, key map[string]types.AttributeValue, at time.Time) error {
	c, err := s.updateOne(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.table),
		Key:                       key,
		UpdateExpression:          aws.String("SET #r = if_not_exists(#r, :at)"),
		ConditionExpression:       aws.String("attribute_exists(#pk)"),
		ExpressionAttributeNames:  map[string]string{"#r": attrRevokedAt, "#pk": attrPK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":at": str(orderTime(at))},
	})
	if err != nil {
		return err
	}
	if c.failedAt(0) {
		return board.ErrNotFound
	}
	return nil
}

// touchItem stamps last_used_at when the stamp is older than staleBefore;
// a refused condition (a use recorded meanwhile, or no such item) is the
// no-op the contract asks for.
func (s *Store) touchItem(ctx context.Context, key map[string]types.AttributeValue, at, staleBefore time.Time) error {
	_, err := s.updateOne(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(s.table),
		Key:                      key,
		UpdateExpression:         aws.String("SET #u = :at"),
		ConditionExpression:      aws.String("attribute_exists(#pk) AND (attribute_not_exists(#u) OR #u <= :stale)"),
		ExpressionAttributeNames: map[string]string{"#u": attrLastUsed, "#pk": attrPK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":at": str(orderTime(at)),
			":stale": str(orderTime(staleBefore))},
	})
	return err
}
