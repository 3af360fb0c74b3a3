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
// then opens a stream on each readable workspace's events: a first small
// Query each, concurrently, then more (each twice the last, never more
// than the walk can still use) from whichever stream holds the newest
// event the walk has not seen. One walk takes the streams' events merged
// newest first, so the items read are about what the page examines plus a
// few per workspace, not a page per workspace. A workspace that is not
// readable is not read at all: its events count toward no bound and are
// never a position.
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
	walk := board.FeedWalk{Query: q}
	if len(slugs) == 0 {
		return walk.Done(), nil
	}
	first := max(1, (walk.Want()+len(slugs)-1)/len(slugs)) + 1 // each stream's share of the page, and one to tell whether more follow
	streams := make([]*eventStream, len(slugs))
	errs := make([]error, len(slugs))
	var wg sync.WaitGroup
	for i, slug := range slugs {
		one := q
		one.Workspace = slug
		in, hi := eventsQuery(s.table, one)
		streams[i] = &eventStream{in: in, hi: hi, chunk: first}
		wg.Go(func() { errs[i] = streams[i].fill(ctx, s, first) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return board.FeedPage{}, err
		}
	}
	for st := newestStream(streams); st != nil; st = newestStream(streams) {
		if !walk.Step(st.head) {
			break
		}
		if err := st.take(ctx, s, walk.Want()); err != nil {
			return board.FeedPage{}, err
		}
	}
	return walk.Done(), nil
}

// eventStream is one workspace's events, newest first, read a Query at a
// time as the merge takes them; head is the event not yet walked.
type eventStream struct {
	in    *dynamodb.QueryInput
	hi    string // the cursor's sort key, an item BETWEEN returns and the feed skips
	chunk int    // the size of the last Query
	items []map[string]types.AttributeValue
	head  board.Event
	order string // head's sort key: (time, id), newest first across workspaces
	done  bool
}

// fill reads the next want items (or fewer) and moves to the first.
func (st *eventStream) fill(ctx context.Context, s *Store, want int) error {
	st.in.Limit = aws.Int32(int32(want))
	page, err := s.query(ctx, st.in)
	if err != nil {
		return err
	}
	st.items = page.Items
	st.in.ExclusiveStartKey = page.LastEvaluatedKey
	if len(page.LastEvaluatedKey) == 0 {
		st.in = nil // nothing after these
	}
	return st.take(ctx, s, want)
}

// take moves head to the next event, reading more when the items read
// are used up: twice the last Query, and no more than the walk can still
// use (want) and one.
func (st *eventStream) take(ctx context.Context, s *Store, want int) error {
	for len(st.items) > 0 {
		item := st.items[0]
		st.items = st.items[1:]
		order := getS(item, attrEventOrder)
		if st.hi != "" && order == st.hi {
			continue
		}
		e, err := decodeDoc[board.Event](item)
		if err != nil {
			return err
		}
		st.head, st.order = e, order
		return nil
	}
	if st.in == nil {
		st.done = true
		return nil
	}
	st.chunk = min(2*st.chunk, want+1)
	return st.fill(ctx, s, st.chunk)
}

// newestStream is the stream whose head sorts newest; nil when all are
// done.
func newestStream(streams []*eventStream) *eventStream {
	var best *eventStream
	for _, st := range streams {
		if !st.done && (best == nil || st.order > best.order) {
			best = st
		}
	}
	return best
}

// eventsQuery is the Query of one workspace's events under q's cursor and
// since bound, newest first, and the cursor's own sort key ("" without a
// cursor), which a BETWEEN returns and the feed skips.
func eventsQuery(table string, q board.FeedQuery) (*dynamodb.QueryInput, string) {
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
	switch {
	case hi != "" && !q.Since.IsZero():
		cond += " AND #at BETWEEN :lo AND :hi"
	case hi != "":
		cond += " AND #at < :hi"
	case !q.Since.IsZero():
		cond += " AND #at > :lo"
	}
	names := map[string]string{"#ws": attrEventWS}
	if cond != "#ws = :ws" {
		names["#at"] = attrEventOrder
	}
	return &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		IndexName:                 aws.String(indexEvents),
		KeyConditionExpression:    aws.String(cond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
		ScanIndexForward:          aws.Bool(false),
	}, hi
}

// walkEvents pages one workspace's events newest first through the walk,
// between the walk's cursor and since bound.
func (s *Store) walkEvents(ctx context.Context, walk *board.FeedWalk) error {
	q := walk.Query
	in, hi := eventsQuery(s.table, q)
	extra := 0 // BETWEEN includes the item at the cursor, which is dropped below
	if hi != "" && !q.Since.IsZero() {
		extra = 1
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
			if !walk.Step(e) {
				return nil
			}
		}
		if len(page.LastEvaluatedKey) == 0 {
			return nil
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
}
