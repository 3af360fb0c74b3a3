package dynamo

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// An export reads page by page (DynamoDB ends a page at 1 MB) and hands
// each page's items on before it reads the next, so it holds one page at a
// time. Tickets and the history come from their indexes in order; notes
// and request records, which no index lists, from a Scan with a filter.

// CanExport reports whether this build can read a whole workspace out:
// the Lambda build leaves Scan out of its client, and an export needs it
// for the notes and request records.
func (s *Store) CanExport() bool { return s.db.Scan != nil }

// eachPage sends in (a Query or, with scan set, a Scan) page by page and
// calls fn with each page's items.
func (s *Store) eachPage(ctx context.Context, q *dynamodb.QueryInput, sc *dynamodb.ScanInput, fn func([]map[string]types.AttributeValue) error) error {
	if sc != nil && !s.CanExport() {
		return errors.New("dynamo: this build cannot export (built with -tags lambda); run the export with the local build")
	}
	for {
		done, err := s.sharedRead(ctx)
		if err != nil {
			return err
		}
		var items []map[string]types.AttributeValue
		var last map[string]types.AttributeValue
		if q != nil {
			out, qerr := s.db.Query(ctx, q)
			err = qerr
			if out != nil {
				items, last = out.Items, out.LastEvaluatedKey
			}
		} else {
			out, serr := s.db.Scan(ctx, sc)
			err = serr
			if out != nil {
				items, last = out.Items, out.LastEvaluatedKey
			}
		}
		done()
		if err != nil {
			return err
		}
		if err := fn(items); err != nil {
			return err
		}
		if len(last) == 0 {
			return nil
		}
		if q != nil {
			q.ExclusiveStartKey = last
		} else {
			sc.ExclusiveStartKey = last
		}
	}
}

// TransferWorkspaces streams every workspace with its counter, by slug:
// the workspace items of their partition, each with a read of its counter
// item.
func (s *Store) TransferWorkspaces(ctx context.Context, fn func(board.TransferredWorkspace) error) error {
	return s.eachPage(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pkWorkspaces)},
		ConsistentRead:            aws.Bool(true),
	}, nil, func(items []map[string]types.AttributeValue) error {
		for _, item := range items {
			if getS(item, attrType) != typeWorkspace {
				continue // a count shard
			}
			w := decodeWorkspace(item)
			// The counter item, once made, is where numbering stands.
			next, err := s.counterNext(ctx, w.Workspace.Slug)
			if err != nil {
				return err
			}
			if err := fn(board.TransferredWorkspace{Slug: w.Workspace.Slug, Name: w.Workspace.Name, AIPolicy: w.Workspace.AIPolicy, Next: max(w.Next, next)}); err != nil {
				return err
			}
		}
		return nil
	})
}

// TransferTickets streams a workspace's tickets from the tickets index,
// lowest number first.
func (s *Store) TransferTickets(ctx context.Context, workspace string, fn func(board.Ticket) error) error {
	return s.eachPage(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(indexTickets),
		KeyConditionExpression:    aws.String("#ws = :ws"),
		ExpressionAttributeNames:  map[string]string{"#ws": attrWS},
		ExpressionAttributeValues: map[string]types.AttributeValue{":ws": str(workspace)},
		ScanIndexForward:          aws.Bool(true),
	}, nil, func(items []map[string]types.AttributeValue) error {
		for _, item := range items {
			t, err := decodeTicket(item)
			if err != nil {
				return err
			}
			if err := fn(t); err != nil {
				return err
			}
		}
		return nil
	})
}

// TransferNotes streams the notes of a workspace's tickets (a Scan of the
// note items under the workspace's ticket partitions).
func (s *Store) TransferNotes(ctx context.Context, workspace string, fn func(board.Note) error) error {
	return s.eachPage(ctx, nil, &dynamodb.ScanInput{
		TableName:                 aws.String(s.table),
		FilterExpression:          aws.String("#type = :note AND begins_with(#pk, :prefix)"),
		ExpressionAttributeNames:  map[string]string{"#type": attrType, "#pk": attrPK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":note": str(typeNote), ":prefix": str(pkTicketPrefix + workspace + "-")},
		ConsistentRead:            aws.Bool(true),
	}, func(items []map[string]types.AttributeValue) error {
		for _, item := range items {
			n, err := decodeDoc[board.Note](item)
			if err != nil {
				return err
			}
			// The prefix also matches workspace "a-b" for "a".
			if slug, _, err := board.ParseTicketID(n.TicketID); err != nil || slug != workspace {
				continue
			}
			if err := fn(n); err != nil {
				return err
			}
		}
		return nil
	})
}

// TransferEvents streams a workspace's history from the events index,
// oldest first, as the activity feed orders it.
func (s *Store) TransferEvents(ctx context.Context, workspace string, fn func(board.Event) error) error {
	return s.eachPage(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(indexEvents),
		KeyConditionExpression:    aws.String("#ws = :ws"),
		ExpressionAttributeNames:  map[string]string{"#ws": attrEventWS},
		ExpressionAttributeValues: map[string]types.AttributeValue{":ws": str(workspace)},
		ScanIndexForward:          aws.Bool(true),
	}, nil, func(items []map[string]types.AttributeValue) error {
		for _, item := range items {
			ev, err := decodeDoc[board.Event](item)
			if err != nil {
				return err
			}
			if err := fn(ev); err != nil {
				return err
			}
		}
		return nil
	})
}

// TransferRequests streams the completed records unexpired at now (a Scan
// of the record items; a record whose result is in its part item is read
// whole).
func (s *Store) TransferRequests(ctx context.Context, now time.Time, fn func(ledger.Record) error) error {
	return s.eachPage(ctx, nil, &dynamodb.ScanInput{
		TableName:                aws.String(s.table),
		FilterExpression:         aws.String("#type = :request AND #st = :done AND #exp > :now"),
		ExpressionAttributeNames: map[string]string{"#type": attrType, "#st": attrReqStatus, "#exp": attrExpiresNS},
		ExpressionAttributeValues: map[string]types.AttributeValue{":request": str(typeRequest),
			":done": str(string(ledger.StatusDone)), ":now": num(now.UnixNano())},
		ConsistentRead: aws.Bool(true),
	}, func(items []map[string]types.AttributeValue) error {
		for _, item := range items {
			r, _, err := s.liveRecord(ctx, item, now)
			if err != nil {
				return err
			}
			if r == nil {
				continue
			}
			if err := fn(*r); err != nil {
				return err
			}
		}
		return nil
	})
}
