package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// queryAll pages through a Query until want items matched (0: all). Each
// page is one request; DynamoDB ends a page at 1 MB of items read, so a
// query whose filter discards most of what it reads may need several.
func (s *Store) queryAll(ctx context.Context, in *dynamodb.QueryInput, want int) ([]map[string]types.AttributeValue, error) {
	var out []map[string]types.AttributeValue
	for {
		done, err := s.sharedRead(ctx)
		if err != nil {
			return nil, err
		}
		page, err := s.db.Query(ctx, in)
		done()
		if err != nil {
			return nil, err
		}
		out = append(out, page.Items...)
		if len(page.LastEvaluatedKey) == 0 || (want > 0 && len(out) >= want) {
			return out, nil
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
}

// query sends one Query in this process's read turn (serialize.go).
func (s *Store) query(ctx context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
	done, err := s.sharedRead(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	return s.db.Query(ctx, in)
}
