package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Ping reads one key that never holds an item, eventually consistent and
// projected to its key: the cheapest request that proves the table answers
// (half a read capacity unit).
func (s *Store) Ping(ctx context.Context) error {
	done, err := s.sharedRead(ctx)
	if err != nil {
		return err
	}
	defer done()
	_, err = s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:                aws.String(s.table),
		Key:                      key(pkWorkspaces, "~ping"),
		ProjectionExpression:     aws.String("#pk"),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK},
	})
	return err
}
