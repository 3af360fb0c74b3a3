package dynamo

import (
	"context"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// ListActivity reads the events index (ev_ws, ev_at) newest first. One
// workspace's feed is one Query, paged while the walk asks for more: the
// index answers the workspace, the cursor and since (key conditions);
// author and type are checked on the decoded events, within q.MaxScan items
// (board.FeedWalk), because the index has no key for them and events
// carry them only in their document.
//
// The feed of every workspace reads the workspace partition (one Query),
// then walks each readable workspace as above, concurrently, with a share
// of the scan budget (MaxScan divided among them, never less than a page),
// and merges the walks (board.MergeFeeds). So it costs one Query per
// readable workspace, each reading at most Limit+1 items without filters.
// A workspace that is not readable is not read at all.
func (s *Store) ListActivity(ctx context.Context, q board.FeedQuery) (board.FeedPage, error) {
	if q.Workspace != "" {
		if _, err := s.readableWorkspace(ctx, q.Workspace, q.Readable); err != nil {
			return board.FeedPage{}, err
		}
		walk := board.FeedWalk{Query: q}
		err := s.walkEvents(ctx, &walk)
		return walk.Done(), err
	}
	all, err := s.ListWorkspaces(ctx)
	if err != nil {
		return board.FeedPage{}, err
	}
	var slugs []string
	for _, w := range all {
		if q.Readable == nil || slices.Contains(q.Readable, w.AIPolicy) {
			slugs = append(slugs, w.Slug)
		}
	}
	pages := make([]board.FeedPage, len(slugs))
	errs := make([]error, len(slugs))
	var wg sync.WaitGroup
	for i, slug := range slugs {
		one := q
		one.Workspace = slug
		one.MaxScan = max(q.Limit+1, q.Scan()/len(slugs))
		wg.Go(func() {
			walk := board.FeedWalk{Query: one}
			errs[i] = s.walkEvents(ctx, &walk)
			pages[i] = walk.Done()
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return board.FeedPage{}, err
		}
	}
	return board.MergeFeeds(pages, q.Limit), nil
}

// walkEvents pages one workspace's events newest first through the walk,
// between the walk's cursor and since bound.
func (s *Store) walkEvents(ctx context.Context, walk *board.FeedWalk) error {
	q := walk.Query
	cond := "#ws = :ws"
	values := map[string]types.AttributeValue{":ws": str(q.Workspace)}
	hi := ""
	if q.Before != nil {
		hi = orderTime(q.Before.At) + "#" + q.Before.ID
		values[":hi"] = str(hi)
	}
	if !q.Since.IsZero() {
		// '$' sorts right after '#': every event at since itself is below.
		values[":lo"] = str(orderTime(q.Since) + "$")
	}
	extra := 0 // BETWEEN includes the item at the cursor, which is dropped below
	switch {
	case hi != "" && !q.Since.IsZero():
		cond += " AND #at BETWEEN :lo AND :hi"
		extra = 1
	case hi != "":
		cond += " AND #at < :hi"
	case !q.Since.IsZero():
		cond += " AND #at > :lo"
	}
	names := map[string]string{"#ws": attrEventWS}
	if cond != "#ws = :ws" {
		names["#at"] = attrEventOrder
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(indexEvents),
		KeyConditionExpression:    aws.String(cond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
		ScanIndexForward:          aws.Bool(false),
	}
	for {
		in.Limit = aws.Int32(int32(walk.Want() + extra))
		page, err := s.query(ctx, in)
		if err != nil {
			return err
		}
		for _, item := range page.Items {
			if hi != "" && getS(item, attrEventOrder) == hi {
				continue
			}
			e, err := decodeDoc[board.Event](item)
			if err != nil {
				return err
			}
			if !walk.Step(e, false) {
				return nil
			}
		}
		if len(page.LastEvaluatedKey) == 0 {
			return nil
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
}
