package dynamo

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// An inbox is one partition per recipient, IB#<recipient>, written with
// the event in the write's own transaction (so it is exactly as current as
// the event, and a write that did not commit told no one):
//
//   - I#<event id>: the item, with read set once it is marked read. A
//     page is one Query of this range, newest first (event ids are
//     UUIDv7: by time); the cursor is the last id, the Query's
//     ExclusiveStartKey.
//   - U#<event id>: the same item while it is unread. The unread page is
//     one Query of this range, and the unread count is one Query of it
//     with Select COUNT and Limit board.UnreadCountCap: no count item,
//     so nothing is hot however many write to one inbox.
//
// Marking read deletes U# and sets read on I#, together. A recipient's
// partition holds only their inbox; the items carry no index keys.
const (
	pkInboxPrefix  = "IB#"
	skInboxItem    = "I#"
	skInboxUnread  = "U#"
	attrInboxRead  = "read"
	typeInboxItem  = "inbox_item"
	markChunk      = 50 // ids a mark commits at once: two items each, within maxTransactItems
	attrInboxEvent = "inbox_event"
)

// inboxItemsPerEntry: an entry's item and its unread marker.
const inboxItemsPerEntry = 2

// inboxWrites are the items a write adds to inboxes: each entry's item and
// its unread marker.
func inboxWrites(s *Store, entries []board.InboxEntry) ([]types.TransactWriteItem, error) {
	var out []types.TransactWriteItem
	for _, e := range entries {
		it := e.Item
		it.Read = false
		doc, err := json.Marshal(it)
		if err != nil {
			return nil, err
		}
		for _, sk := range []string{skInboxItem, skInboxUnread} {
			item := key(pkInboxPrefix+e.Recipient, sk+it.ID)
			item[attrType] = str(typeInboxItem)
			item[attrInboxEvent] = str(it.ID)
			putBlob(item, attrDoc, doc)
			out = append(out, s.put(item, "", nil, nil, false))
		}
	}
	return out, nil
}

// ListInbox is one Query of the recipient's items or unread markers.
func (s *Store) ListInbox(ctx context.Context, q board.InboxQuery) ([]board.InboxItem, bool, error) {
	prefix := skInboxItem
	if q.UnreadOnly {
		prefix = skInboxUnread
	}
	pk := pkInboxPrefix + q.Recipient
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("#pk = :pk AND begins_with(#sk, :prefix)"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK, "#sk": attrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pk), ":prefix": str(prefix)},
		ScanIndexForward:          aws.Bool(false),
		ConsistentRead:            aws.Bool(true),
		Limit:                     aws.Int32(int32(q.Limit + 1)),
	}
	if q.Before != "" {
		in.ExclusiveStartKey = key(pk, prefix+q.Before)
	}
	out, err := s.query(ctx, in)
	if err != nil {
		return nil, false, err
	}
	items := []board.InboxItem{}
	for _, raw := range out.Items {
		if len(items) == q.Limit {
			return items, true, nil
		}
		it, err := decodeDoc[board.InboxItem](raw)
		if err != nil {
			return nil, false, err
		}
		it.Read = q.UnreadOnly == false && raw[attrInboxRead] != nil
		items = append(items, it)
	}
	return items, false, nil
}

// CountUnread is one Query of the unread markers, counting at most limit.
func (s *Store) CountUnread(ctx context.Context, recipient string, limit int) (int, error) {
	out, err := s.query(ctx, s.unreadQuery(recipient, limit, types.SelectCount))
	if err != nil {
		return 0, err
	}
	return int(out.Count), nil
}

func (s *Store) unreadQuery(recipient string, limit int, sel types.Select) *dynamodb.QueryInput {
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("#pk = :pk AND begins_with(#sk, :prefix)"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK, "#sk": attrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pkInboxPrefix + recipient), ":prefix": str(skInboxUnread)},
		ConsistentRead:            aws.Bool(true),
		Limit:                     aws.Int32(int32(limit)),
		Select:                    sel,
	}
	if sel == types.SelectSpecificAttributes {
		in.ProjectionExpression = aws.String("#pk, #sk")
	}
	return in
}

// MarkInboxRead reads which of the ids are unread, then marks those.
func (s *Store) MarkInboxRead(ctx context.Context, recipient string, ids []string) (int, error) {
	pk := pkInboxPrefix + recipient
	var keys []map[string]types.AttributeValue
	seen := map[string]bool{}
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			keys = append(keys, key(pk, skInboxUnread+id))
		}
	}
	var unread []string
	for len(keys) > 0 {
		n := min(len(keys), 100) // BatchGetItem's limit
		found, err := s.batchRead(ctx, keys[:n], true, "#pk, #sk", map[string]string{"#pk": attrPK, "#sk": attrSK})
		if err != nil {
			return 0, err
		}
		for _, item := range found {
			if item != nil {
				unread = append(unread, getS(item, attrSK)[len(skInboxUnread):])
			}
		}
		keys = keys[n:]
	}
	return len(unread), s.markRead(ctx, pk, unread)
}

// MarkAllInboxRead marks the unread markers it finds, a chunk at a time,
// until none is left.
func (s *Store) MarkAllInboxRead(ctx context.Context, recipient string) (int, error) {
	pk := pkInboxPrefix + recipient
	marked := 0
	for {
		out, err := s.query(ctx, s.unreadQuery(recipient, markChunk, types.SelectSpecificAttributes))
		if err != nil {
			return marked, err
		}
		if len(out.Items) == 0 {
			return marked, nil
		}
		var ids []string
		for _, item := range out.Items {
			ids = append(ids, getS(item, attrSK)[len(skInboxUnread):])
		}
		if err := s.markRead(ctx, pk, ids); err != nil {
			return marked, err
		}
		marked += len(ids)
	}
}

// markRead deletes the unread markers of ids and sets read on their items,
// each chunk in one transaction (through commit, which handles meeting
// other writes). Marking twice changes nothing.
func (s *Store) markRead(ctx context.Context, pk string, ids []string) error {
	for len(ids) > 0 {
		n := min(len(ids), markChunk)
		var items []types.TransactWriteItem
		for _, id := range ids[:n] {
			items = append(items,
				types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(s.table), Key: key(pk, skInboxUnread+id)}},
				types.TransactWriteItem{Update: &types.Update{TableName: aws.String(s.table), Key: key(pk, skInboxItem+id),
					UpdateExpression:          aws.String("SET #read = :t"),
					ConditionExpression:       aws.String("attribute_exists(#pk)"),
					ExpressionAttributeNames:  map[string]string{"#read": attrInboxRead, "#pk": attrPK},
					ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberBOOL{Value: true}}}})
		}
		c, err := s.commit(ctx, items)
		if err != nil {
			return err
		}
		if c != nil {
			return fmt.Errorf("dynamo: marking inbox items read: an item is missing under its unread marker: %v", c.codes)
		}
		ids = ids[n:]
	}
	return nil
}
