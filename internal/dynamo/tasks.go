package dynamo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Durable tasks (docs/dynamodb.md, "Tasks"). A task is one item, K#<id> K,
// holding the whole board.Task as JSON in doc, with its status and cursor
// as attributes for conditions. Its staged rows sit in the same partition
// in pages, P#<first row>, each a JSON array of rows (deflated), so an
// import of 10 000 rows is staged in a few items and read a page at a
// time. While a task is active, a marker item in the partition KA names it,
// so a runner can list unfinished tasks with one Query. Tasks, pages and
// markers carry expires_at, and TTL deletes them after the task expires.
const (
	pkTaskPrefix  = "K#"
	skTask        = "K"
	skPagePrefix  = "P#"
	pkActiveTasks = "KA"
	attrCursor    = "cursor"
	attrFirstRow  = "first"
	attrRowCount  = "rows"
	attrTaskID    = "task"
	typeTask      = "task"
	typePage      = "task-rows"
	typeActive    = "task-active"
	// pageBytes bounds the rows of one page before compression, so a page
	// stays under the 400 KB item limit even when nothing compresses.
	pageBytes = 300 * 1024
)

func taskKey(id string) map[string]types.AttributeValue { return key(pkTaskPrefix+id, skTask) }

func pageKey(taskID string, first int) map[string]types.AttributeValue {
	return key(pkTaskPrefix+taskID, skPagePrefix+fmt.Sprintf("%09d", first))
}

func activeKey(t board.Task) map[string]types.AttributeValue {
	return key(pkActiveTasks, orderTime(t.CreatedAt)+"#"+t.ID)
}

func taskItem(t board.Task) (map[string]types.AttributeValue, error) {
	doc, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	item := taskKey(t.ID)
	item[attrType] = str(typeTask)
	putBlob(item, attrDoc, doc)
	item[attrReqStatus] = str(string(t.Status))
	item[attrCursor] = num(int64(t.Cursor))
	item[attrExpiresNS] = num(t.ExpiresAt.UnixNano())
	item[attrExpiresAt] = num(ttlSeconds(t.ExpiresAt))
	return item, checkSize("task", item)
}

func decodeTask(item map[string]types.AttributeValue) (board.Task, error) {
	return decodeDoc[board.Task](item)
}

func activeItem(t board.Task) map[string]types.AttributeValue {
	item := activeKey(t)
	item[attrType] = str(typeActive)
	item[attrTaskID] = str(t.ID)
	item[attrExpiresAt] = num(ttlSeconds(t.ExpiresAt))
	return item
}

// pages splits rows into page items.
func pages(t board.Task, rows []json.RawMessage) ([]map[string]types.AttributeValue, error) {
	var out []map[string]types.AttributeValue
	for first := 0; first < len(rows); {
		var buf bytes.Buffer
		buf.WriteByte('[')
		n := 0
		for first+n < len(rows) && (n == 0 || buf.Len()+len(rows[first+n]) < pageBytes) {
			if n > 0 {
				buf.WriteByte(',')
			}
			buf.Write(rows[first+n])
			n++
		}
		buf.WriteByte(']')
		item := pageKey(t.ID, first)
		item[attrType] = str(typePage)
		item[attrFirstRow] = num(int64(first))
		item[attrRowCount] = num(int64(n))
		item[attrExpiresAt] = num(ttlSeconds(t.ExpiresAt))
		putBlob(item, attrDoc, buf.Bytes())
		if err := checkSize("staged rows", item); err != nil {
			return nil, err
		}
		out = append(out, item)
		first += n
	}
	return out, nil
}

// CreateTask writes the staged pages, then the task and its active marker
// in one transaction: a runner finds a task only once its rows are there.
// Pages without their task (a failed create) are garbage that TTL removes.
func (s *Store) CreateTask(ctx context.Context, t board.Task, rows []json.RawMessage) error {
	ps, err := pages(t, rows)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if err := s.commitOnce(ctx, []types.TransactWriteItem{s.put(p, "", nil, nil, false)}, "staging task "+t.ID); err != nil {
			return err
		}
	}
	item, err := taskItem(t)
	if err != nil {
		return err
	}
	items := []types.TransactWriteItem{s.put(item, "attribute_not_exists(#pk)", map[string]string{"#pk": attrPK}, nil, false)}
	if !t.Status.Terminal() {
		items = append(items, s.put(activeItem(t), "", nil, nil, false))
	}
	return s.commitOnce(ctx, items, "creating task "+t.ID)
}

// commitOnce commits items; a failed condition is an error. (commit
// itself retries a transaction that met another.)
func (s *Store) commitOnce(ctx context.Context, items []types.TransactWriteItem, what string) error {
	c, err := s.commit(ctx, items)
	switch {
	case err != nil:
		return err
	case c != nil:
		return fmt.Errorf("dynamo: %s: refused (%v)", what, c.codes)
	}
	return nil
}

// GetTask is one consistent GetItem.
func (s *Store) GetTask(ctx context.Context, id string, now time.Time) (board.Task, error) {
	item, err := s.getItem(ctx, taskKey(id))
	if err != nil {
		return board.Task{}, err
	}
	if item == nil {
		return board.Task{}, board.ErrNotFound
	}
	t, err := decodeTask(item)
	if err != nil {
		return board.Task{}, err
	}
	if t.Expired(now) {
		return board.Task{}, board.ErrNotFound
	}
	return t, nil
}

// StagedRows reads the page holding row from (one Query: the page whose
// first row is the greatest at or below from) and returns its rows from
// there, up to n. A caller that wants more asks again from where it is.
func (s *Store) StagedRows(ctx context.Context, taskID string, from, n int) ([]json.RawMessage, error) {
	out, err := s.db.Query(ctx, &dynamodb.QueryInput{
		TableName:                aws.String(s.table),
		KeyConditionExpression:   aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK, "#sk": attrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": str(pkTaskPrefix + taskID),
			":lo": str(skPagePrefix),
			":hi": pageKey(taskID, from)[attrSK],
		},
		ScanIndexForward: aws.Bool(false),
		Limit:            aws.Int32(1),
		ConsistentRead:   aws.Bool(true),
	})
	if err != nil {
		return nil, err
	}
	if len(out.Items) == 0 {
		return nil, nil
	}
	page := out.Items[0]
	doc, err := getBlob(page, attrDoc)
	if err != nil {
		return nil, err
	}
	var rows []json.RawMessage
	if err := json.Unmarshal(doc, &rows); err != nil {
		return nil, fmt.Errorf("dynamo: staged rows of task %s: %w", taskID, err)
	}
	skip := from - int(getN(page, attrFirstRow))
	if skip >= len(rows) {
		return nil, nil // past the last row
	}
	rows = rows[skip:]
	if len(rows) > n {
		rows = rows[:n]
	}
	return rows, nil
}

// taskCondition holds while the stored task's status is one of from and
// its cursor is cursor.
func taskCondition(from []board.TaskStatus, cursor int) (string, map[string]string, map[string]types.AttributeValue) {
	names := map[string]string{"#st": attrReqStatus, "#cur": attrCursor}
	values := map[string]types.AttributeValue{":cur": num(int64(cursor))}
	var in []string
	for i, st := range from {
		name := ":s" + strconv.Itoa(i)
		values[name] = str(string(st))
		in = append(in, name)
	}
	cond := "#cur = :cur"
	if len(in) > 0 {
		cond = "#st IN (" + joinComma(in) + ") AND " + cond
	}
	return cond, names, values
}

func joinComma(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return out
}

// UpdateTask replaces the task under the condition; an ending task loses
// its active marker in the same transaction.
func (s *Store) UpdateTask(ctx context.Context, t board.Task, from []board.TaskStatus) error {
	item, err := taskItem(t)
	if err != nil {
		return err
	}
	cond, names, values := taskCondition(from, t.Cursor)
	items := []types.TransactWriteItem{s.put(item, cond, names, values, true)}
	if t.Status.Terminal() {
		items = append(items, types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(s.table), Key: activeKey(t)}})
	}
	unlock, err := s.locks.lock(ctx, "task\x00"+t.ID)
	if err != nil {
		return err
	}
	defer unlock()
	// Only the task's put has a condition, so a refusal is its answer;
	// conflicts with other transactions are commit's to retry.
	c, err := s.commit(ctx, items)
	switch {
	case err != nil:
		return err
	case c == nil:
		return nil
	case c.failedAt(0):
		return s.taskChanged(ctx, t.ID, c.old[0])
	}
	return fmt.Errorf("dynamo: updating task %s was refused: %v", t.ID, c.codes)
}

// taskChanged reads the task as stored (from the cancellation's old item
// when the endpoint returned it) into a *board.TaskChangedError.
func (s *Store) taskChanged(ctx context.Context, id string, old map[string]types.AttributeValue) error {
	if old == nil {
		item, err := s.getItem(ctx, taskKey(id))
		if err != nil {
			return err
		}
		old = item
	}
	if old == nil {
		return board.ErrNotFound
	}
	t, err := decodeTask(old)
	if err != nil {
		return err
	}
	return &board.TaskChangedError{Task: t}
}

// UnfinishedTasks queries the active markers and reads their tasks.
func (s *Store) UnfinishedTasks(ctx context.Context, now time.Time) ([]board.Task, error) {
	var ids []string
	var start map[string]types.AttributeValue
	for {
		out, err := s.db.Query(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(s.table),
			KeyConditionExpression:    aws.String("#pk = :pk"),
			ExpressionAttributeNames:  map[string]string{"#pk": attrPK},
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pkActiveTasks)},
			ConsistentRead:            aws.Bool(true),
			ExclusiveStartKey:         start,
		})
		if err != nil {
			return nil, err
		}
		for _, it := range out.Items {
			ids = append(ids, getS(it, attrTaskID))
		}
		if start = out.LastEvaluatedKey; len(start) == 0 {
			break
		}
	}
	var tasks []board.Task
	for batch := range slices.Chunk(ids, 100) {
		keys := make([]map[string]types.AttributeValue, len(batch))
		for i, id := range batch {
			keys[i] = taskKey(id)
		}
		found, err := s.batchGet(ctx, keys)
		if err != nil {
			return nil, err
		}
		for _, item := range found {
			if item == nil {
				continue
			}
			t, err := decodeTask(item)
			if err != nil {
				return nil, err
			}
			if !t.Status.Terminal() && !t.Expired(now) {
				tasks = append(tasks, t)
			}
		}
	}
	sort.SliceStable(tasks, func(i, j int) bool {
		if !tasks[i].CreatedAt.Equal(tasks[j].CreatedAt) {
			return tasks[i].CreatedAt.Before(tasks[j].CreatedAt)
		}
		return tasks[i].ID < tasks[j].ID
	})
	return tasks, nil
}
