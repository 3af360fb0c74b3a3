package dynamo

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A move carries inboxes item by item: an export finds a workspace's items
// by a Scan (an inbox is a recipient's partition, which no index lists by
// workspace), an import puts each item with its unread marker while it is
// unread, as a write does (inbox.go).

// TransferInbox streams the inbox items of a workspace's events, every
// recipient's, each with whether it was read.
func (s *Store) TransferInbox(ctx context.Context, workspace string, fn func(board.InboxEntry) error) error {
	return s.eachPage(ctx, nil, &dynamodb.ScanInput{
		TableName:                 aws.String(s.table),
		FilterExpression:          aws.String("#type = :inbox AND begins_with(#sk, :item)"),
		ExpressionAttributeNames:  map[string]string{"#type": attrType, "#sk": attrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":inbox": str(typeInboxItem), ":item": str(skInboxItem)},
		ConsistentRead:            aws.Bool(true),
	}, func(items []map[string]types.AttributeValue) error {
		for _, raw := range items {
			it, err := decodeDoc[board.InboxItem](raw)
			if err != nil {
				return err
			}
			if it.Workspace != workspace {
				continue
			}
			it.Read = raw[attrInboxRead] != nil
			if err := fn(board.InboxEntry{Recipient: strings.TrimPrefix(getS(raw, attrPK), pkInboxPrefix), Item: it}); err != nil {
				return err
			}
		}
		return nil
	})
}

// movedInboxWrites are the writes of a moved inbox item: the item, if
// absent, read or not as it is, and its unread marker while it is unread.
func (s *Store) movedInboxWrites(e board.InboxEntry) ([]types.TransactWriteItem, int, error) {
	it := e.Item
	read := it.Read
	it.Read = false // the item's read attribute, or its marker, says it
	doc, err := json.Marshal(it)
	if err != nil {
		return nil, 0, err
	}
	pk := pkInboxPrefix + e.Recipient
	item := key(pk, skInboxItem+it.ID)
	item[attrType] = str(typeInboxItem)
	item[attrInboxEvent] = str(it.ID)
	putBlob(item, attrDoc, doc)
	if read {
		item[attrInboxRead] = &types.AttributeValueMemberBOOL{Value: true}
	}
	writes := []types.TransactWriteItem{s.put(item, "attribute_not_exists(#pk)", absent, nil, true)}
	size := itemSize(item)
	if !read {
		marker := key(pk, skInboxUnread+it.ID)
		marker[attrType] = str(typeInboxItem)
		marker[attrInboxEvent] = str(it.ID)
		putBlob(marker, attrDoc, doc)
		writes = append(writes, s.put(marker, "", nil, nil, false))
		size += itemSize(marker)
	}
	return writes, size, nil
}

// PutInboxItem puts a moved inbox item, if absent, in one transaction with
// a check that its workspace exists.
func (s *Store) PutInboxItem(ctx context.Context, e board.InboxEntry) (board.PutOutcome, error) {
	writes, _, err := s.movedInboxWrites(e)
	if err != nil {
		return 0, err
	}
	c, err := s.commit(ctx, append(writes, s.mustExist(workspaceKey(e.Item.Workspace))))
	switch {
	case err != nil:
		return 0, err
	case c == nil:
		return board.Added, nil
	case !c.failedAt(0):
		return 0, board.ErrNotFound
	}
	old, err := s.oldItem(ctx, c, 0, key(pkInboxPrefix+e.Recipient, skInboxItem+e.Item.ID))
	if err != nil {
		return 0, err
	}
	have, err := decodeDoc[board.InboxItem](old)
	return sameOutcome(board.SameInboxEntry(board.InboxEntry{Recipient: e.Recipient, Item: have}, e)), err
}
