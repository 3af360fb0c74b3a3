package dynamo

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// WorkspaceMarker is one Query of the events index with Limit 1 that reads
// only the index key: one item, the newest event by (time, id). Its sort
// key ends with the event id, so nothing else of the item is needed. The
// index is eventually consistent; a board learns of a write once it shows
// there, typically well within the poll's interval.
//
// The policy is decided first when the caller's reads are limited (AI),
// from the process's copy, so mostly without a request. A person may read
// any workspace, so their poll (every few seconds, from every open board)
// skips it: the Query alone, one request, whatever the policy copy's age.
// Only a workspace without events needs the workspace read, to tell an
// empty one from a missing one.
func (s *Store) WorkspaceMarker(ctx context.Context, slug string, readable []board.AIPolicy) (string, error) {
	if readable != nil {
		if _, err := s.readableWorkspace(ctx, slug, readable); err != nil {
			return "", err
		}
	}
	out, err := s.query(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(indexEvents),
		KeyConditionExpression:    aws.String("#ws = :ws"),
		ProjectionExpression:      aws.String("#at"),
		ExpressionAttributeNames:  map[string]string{"#ws": attrEventWS, "#at": attrEventOrder},
		ExpressionAttributeValues: map[string]types.AttributeValue{":ws": str(slug)},
		ScanIndexForward:          aws.Bool(false),
		Limit:                     aws.Int32(1),
	})
	if err != nil {
		return "", err
	}
	if len(out.Items) == 0 {
		if readable == nil {
			if _, err := s.WorkspacePolicy(ctx, slug); err != nil {
				return "", err
			}
		}
		return "", nil
	}
	order := getS(out.Items[0], attrEventOrder)
	return order[strings.LastIndexByte(order, '#')+1:], nil
}

// TicketMarker is one consistent GetItem of the ticket that reads only its
// version, so a page never sees the marker go back to an older version;
// the policy first as above, only when the caller's reads are limited.
func (s *Store) TicketMarker(ctx context.Context, id string, readable []board.AIPolicy) (int64, error) {
	slug, _, err := board.ParseTicketID(id)
	if err != nil {
		return 0, board.ErrNotFound
	}
	if readable != nil {
		if _, err := s.readableWorkspace(ctx, slug, readable); err != nil {
			return 0, err
		}
	}
	done, err := s.sharedRead(ctx)
	if err != nil {
		return 0, err
	}
	defer done()
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: ticketKey(id), ConsistentRead: aws.Bool(true),
		ProjectionExpression: aws.String("#v"), ExpressionAttributeNames: map[string]string{"#v": attrVersion}})
	if err != nil {
		return 0, err
	}
	if len(out.Item) == 0 {
		return 0, board.ErrNotFound
	}
	return getN(out.Item, attrVersion), nil
}
