package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// An import chunk is one TransactWriteItems of at most 100 items: the task
// (its condition: still working at the chunk's cursor; its new cursor and
// progress), the workspace (its counter moves by the rows imported, its
// candidate count with it, under the policy condition), and per row three
// items — the row's record (condition: no live record under
// <request_id>#<row>), the ticket and its created event — plus one tag index
// item per tag. So a chunk takes up to 32 rows without tags (24 with one
// tag each), fewer when their items would pass chunkBytes.
const (
	chunkItems     = 100
	itemsPerRow    = 3
	chunkFixed     = 2
	chunkBytes     = 3_500_000 // under the transaction's 4 MB
	chunkTaskAt    = 0
	chunkCounterAt = 1
)

// chunkLayout says which row each conditional item belongs to.
type chunkLayout struct {
	record map[int]int // item index -> row index
	ticket map[int]int
}

// ImportChunk commits a prefix of tx.Rows in one transaction. Warm, a chunk
// is one request; a row some other run imported is skipped after the
// transaction names it (its record's condition fails).
func (s *Store) ImportChunk(ctx context.Context, tx board.ChunkTx) (board.Task, error) {
	ws := tx.Task.Workspace
	unlock, err := s.locks.lock(ctx, "workspace\x00"+ws)
	if err != nil {
		return board.Task{}, err
	}
	defer unlock()
	if s.cache.next(ws) == 0 {
		since := s.cache.epoch()
		item, err := s.getItem(ctx, workspaceKey(ws))
		if err != nil {
			return board.Task{}, err
		}
		if err := s.checkWorkspace(board.CreateTx{Workspace: ws, AllowedPolicies: tx.AllowedPolicies}, item, since); err != nil {
			return board.Task{}, err
		}
	}
	skip := map[int]bool{}
	for attempt := 0; attempt < maxAttempts; attempt++ {
		number := s.cache.next(ws)
		items, at, taken, imported, err := s.chunkItems(tx, number, skip)
		if err != nil {
			return board.Task{}, err
		}
		since := s.cache.epoch() // for what the cancellation returns
		c, err := s.commit(ctx, items)
		switch {
		case err != nil:
			return board.Task{}, err
		case c == nil:
			if imported > 0 {
				s.cache.setNext(ws, number+int64(imported))
				s.cache.countsUnknown(ws)
				s.indexImported(ctx, items)
			}
			return tx.After(taken, imported), nil
		case c.failedAt(chunkTaskAt):
			return board.Task{}, s.taskChanged(ctx, tx.Task.ID, c.old[chunkTaskAt])
		case c.failedAt(chunkCounterAt):
			if err := s.counterMoved(ctx, board.CreateTx{Workspace: ws, AllowedPolicies: tx.AllowedPolicies}, c.old[chunkCounterAt], since, number); err != nil {
				return board.Task{}, err
			}
			continue // numbers taken by creates meanwhile: build again
		}
		retried := false
		for i, row := range at.record {
			if !c.failedAt(i) {
				continue
			}
			live, err := s.liveRowRecord(ctx, tx.Rows[row], c.old[i])
			if err != nil {
				return board.Task{}, err
			}
			if live {
				skip[row] = true // imported by another run of this request
			}
			retried = true
		}
		for i, row := range at.ticket {
			if c.failedAt(i) {
				return board.Task{}, fmt.Errorf("dynamo: ticket of row %d exists although workspace %s's counter is at %d", tx.Rows[row].Index, ws, number)
			}
		}
		if retried {
			continue
		}
		if err := backoff(ctx, attempt); err != nil {
			return board.Task{}, err
		}
	}
	return board.Task{}, fmt.Errorf("dynamo: importing a chunk of task %s kept conflicting", tx.Task.ID)
}

// liveRowRecord reports whether a row's key holds an unexpired record.
func (s *Store) liveRowRecord(ctx context.Context, row board.ChunkRow, old map[string]types.AttributeValue) (bool, error) {
	if old == nil {
		item, err := s.getItem(ctx, requestKey(row.Record.Key))
		if err != nil {
			return false, err
		}
		old = item
	}
	rec, _, err := s.liveRecord(ctx, old, row.Record.CreatedAt)
	return rec != nil, err
}

// chunkItems lays out the transaction for the longest prefix of rows that
// fits, numbering the rows not skipped from number on.
func (s *Store) chunkItems(tx board.ChunkTx, number int64, skip map[int]bool) ([]types.TransactWriteItem, chunkLayout, int, int, error) {
	at := chunkLayout{record: map[int]int{}, ticket: map[int]int{}}
	var rowItems []types.TransactWriteItem
	size, taken, imported := 0, 0, 0
	for i, row := range tx.Rows {
		if skip[i] {
			taken++
			continue
		}
		if chunkFixed+len(rowItems)+itemsPerRow+len(row.Input.Tags) > chunkItems {
			break
		}
		plan, err := tx.Build(row, number+int64(imported))
		if err != nil {
			return nil, at, 0, 0, err
		}
		rec := row.Record
		rec.Result = plan.Result
		recItem := recordItem(rec, "")
		ticket, err := ticketItem(plan.Ticket)
		if err != nil {
			return nil, at, 0, 0, err
		}
		if err := checkSize("ticket", ticket); err != nil {
			return nil, at, 0, 0, err
		}
		event, err := eventItem(plan.Event)
		if err != nil {
			return nil, at, 0, 0, err
		}
		rowSize := itemSize(recItem) + itemSize(ticket) + itemSize(event)
		if imported > 0 && size+rowSize > chunkBytes {
			break
		}
		size += rowSize
		cond, names, values := recordCondition(rec.CreatedAt)
		at.record[chunkFixed+len(rowItems)] = i
		rowItems = append(rowItems, s.put(recItem, cond, names, values, true))
		at.ticket[chunkFixed+len(rowItems)] = i
		rowItems = append(rowItems, s.put(ticket, "attribute_not_exists(#pk)", map[string]string{"#pk": attrPK}, nil, false))
		rowItems = append(rowItems, s.put(event, "", nil, nil, false))
		// The tag index items, as a create writes them (tagitems.go).
		rowItems = append(rowItems, s.tagWrites(nil, plan.Ticket)...)
		taken++
		imported++
	}
	after := tx.After(taken, imported)
	task, err := taskItem(after)
	if err != nil {
		return nil, at, 0, 0, err
	}
	cond, names, values := taskCondition([]board.TaskStatus{board.TaskWorking}, tx.Task.Cursor)
	items := []types.TransactWriteItem{
		chunkTaskAt:    s.put(task, cond, names, values, true),
		chunkCounterAt: s.counterAdvance(tx.Task.Workspace, number, imported, tx.AllowedPolicies),
	}
	return append(items, rowItems...), at, taken, imported, nil
}

// counterAdvance takes n numbers from number on and counts n new
// candidates, only while the counter is at number and the policy allows
// the caller. With n = 0 it only checks.
func (s *Store) counterAdvance(slug string, number int64, n int, allowed []board.AIPolicy) types.TransactWriteItem {
	cond, names, values := policyCondition(allowed)
	names["#next"] = attrNextNum
	values[":expected"] = num(number)
	cond = "#next = :expected AND " + cond
	u := &types.Update{
		TableName:                           aws.String(s.table),
		Key:                                 workspaceKey(slug),
		ConditionExpression:                 aws.String(cond),
		ExpressionAttributeNames:            names,
		ExpressionAttributeValues:           values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	if n == 0 {
		return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: u.TableName, Key: u.Key, ConditionExpression: u.ConditionExpression,
			ExpressionAttributeNames: names, ExpressionAttributeValues: values,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}}
	}
	names["#count"] = countAttr(board.StatusCandidate)
	values[":after"] = num(number + int64(n))
	values[":n"] = num(int64(n))
	u.UpdateExpression = aws.String("SET #next = :after ADD #count :n")
	return types.TransactWriteItem{Update: u}
}
