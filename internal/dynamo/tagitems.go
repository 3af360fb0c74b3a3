package dynamo

import (
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// tagWrites are the items a write transaction adds so that a ticket's tag
// items follow its tags: a put for each tag after has and before had not
// (every tag, for a new ticket: before nil) and a delete for each tag before
// had and after has not. A create with 20 tags is 24 items, an update
// replacing 20 tags 45: under DynamoDB's 100 items per transaction.
func (s *Store) tagWrites(before *board.Ticket, after board.Ticket) []types.TransactWriteItem {
	var old []string
	if before != nil {
		old = before.Tags
	}
	var items []types.TransactWriteItem
	for _, tag := range after.Tags {
		if !slices.Contains(old, tag) {
			items = append(items, s.put(tagItem(after, tag), "", nil, nil, false))
		}
	}
	for _, tag := range old {
		if !slices.Contains(after.Tags, tag) {
			items = append(items, types.TransactWriteItem{Delete: &types.Delete{
				TableName: aws.String(s.table),
				Key:       tagKey(after.ID, tag),
			}})
		}
	}
	return items
}
