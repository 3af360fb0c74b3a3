package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// An import chunk is one TransactWriteItems of at most 100 items: the task
// (its condition: still working at the chunk's cursor; its new cursor and
// progress), the count of the rows imported as candidates on this
// instance's count shard (their numbers come from its leased block), and per row three
// items — the row's record (condition: no live record under
// <request_id>#<row>), the ticket and its created event — plus one tag index
// item per tag. So a chunk takes up to 32 rows without tags (24 with one
// tag each), fewer when their items would pass chunkBytes.
const (
	chunkItems   = 100
	itemsPerRow  = 3
	chunkFixed   = 2
	chunkBytes   = 3_500_000 // under the transaction's 4 MB
	chunkTaskAt  = 0
	chunkCountAt = 1
	// chunkMaxRows: the most rows a chunk can hold; a chunk leases as many
	// numbers as it may use, and what it leaves stays in the block.
	chunkMaxRows = (chunkItems - chunkFixed) / itemsPerRow
)

// chunkLayout says which row each conditional item belongs to.
type chunkLayout struct {
	record map[int]int // item index -> row index
	ticket map[int]int
}

// ImportChunk commits a prefix of tx.Rows in one transaction. An AI
// caller's chunk reads the workspace's policy first (consistently), and a
// chunk whose numbers this instance's block cannot cover leases a block;
// otherwise a chunk is one request. A row some other run imported is
// skipped after the transaction names it (its record's condition fails).
func (s *Store) ImportChunk(ctx context.Context, tx board.ChunkTx) (board.Task, error) {
	ws := tx.Task.Workspace
	unlock, err := s.locks.lock(ctx, "workspace\x00"+ws)
	if err != nil {
		return board.Task{}, err
	}
	defer unlock()
	if tx.AllowedPolicies != nil {
		item, err := s.getItem(ctx, workspaceKey(ws))
		if err != nil {
			return board.Task{}, err
		}
		if item == nil {
			return board.Task{}, board.ErrNotFound
		}
		if err := board.CheckPolicy(tx.AllowedPolicies, decodeWorkspace(item).Workspace.AIPolicy); err != nil {
			return board.Task{}, err
		}
	}
	shard, release, err := s.takeSlot(ctx, ws)
	if err != nil {
		return board.Task{}, err
	}
	defer release()
	skip := map[int]bool{}
	var number int64
	var items []types.TransactWriteItem
	var at chunkLayout
	var taken, imported int
	committed, err := s.transact(ctx, txn{
		what: "importing a chunk of task " + tx.Task.ID,
		build: func(string) ([]types.TransactWriteItem, error) {
			// The rest of this instance's block first (no gap), else a
			// block for as many rows as a chunk holds.
			if s.numbersLeft(ws) == 0 {
				if err := s.ensureNumbers(ctx, ws, int64(min(len(tx.Rows), chunkMaxRows))); err != nil {
					return nil, err
				}
			}
			number = s.peekNumber(ws)
			var err error
			items, at, taken, imported, err = s.chunkItems(tx, number, int(s.numbersLeft(ws)), skip, shard)
			return items, err
		},
		judge: func(ctx context.Context, c *cancellation) (step, error) {
			switch {
			case c.failedAt(chunkTaskAt):
				return stepDone, s.taskChanged(ctx, tx.Task.ID, c.old[chunkTaskAt])
			case c.failedAt(chunkCountAt):
				return stepDone, board.ErrNotFound
			}
			next := stepBackoff
			for i, row := range at.record {
				if !c.failedAt(i) {
					continue
				}
				live, err := s.liveRowRecord(ctx, tx.Rows[row], c.old[i])
				if err != nil {
					return stepDone, err
				}
				if live {
					skip[row] = true // imported by another run of this request
				}
				next = stepAgain
			}
			for i := range at.ticket {
				if c.failedAt(i) {
					// A number of the block holds a ticket already (an
					// import raised the counter past it, or a commit whose
					// answer was lost used it): lease afresh above it.
					s.dropNumbers(ws)
					next = stepAgain
				}
			}
			return next, nil
		},
	})
	switch {
	case err != nil:
		return board.Task{}, err
	case !committed:
		return board.Task{}, fmt.Errorf("dynamo: importing a chunk of task %s ended without an answer", tx.Task.ID)
	}
	if imported > 0 {
		s.usedNumbers(ws, number, int64(imported))
		s.cache.countsChanged(ws)
		s.indexImported(ctx, items)
	}
	return tx.After(taken, imported), nil
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
// fits, numbering the rows not skipped from number on, at most numbers of
// them.
func (s *Store) chunkItems(tx board.ChunkTx, number int64, numbers int, skip map[int]bool, shard int) ([]types.TransactWriteItem, chunkLayout, int, int, error) {
	at := chunkLayout{record: map[int]int{}, ticket: map[int]int{}}
	var rowItems []types.TransactWriteItem
	size, taken, imported := 0, 0, 0
	for i, row := range tx.Rows {
		if skip[i] {
			taken++
			continue
		}
		if chunkFixed+len(rowItems)+itemsPerRow+len(row.Input.Tags) > chunkItems || imported == numbers {
			break
		}
		plan, err := tx.Build(row, number+int64(imported))
		if err != nil {
			return nil, at, 0, 0, err
		}
		rec := row.Record
		rec.Result = plan.Result
		recItem := recordItem(rec, "")
		ticket, err := s.newTicket(plan.Ticket, false)
		if err != nil {
			return nil, at, 0, 0, err
		}
		event, err := eventItem(plan.Event)
		if err != nil {
			return nil, at, 0, 0, err
		}
		rowSize := itemSize(recItem) + ticket.size + itemSize(event)
		if imported > 0 && size+rowSize > chunkBytes {
			break
		}
		size += rowSize
		cond, names, values := recordCondition(rec.CreatedAt)
		at.record[chunkFixed+len(rowItems)] = i
		rowItems = append(rowItems, s.put(recItem, cond, names, values, true))
		at.ticket[chunkFixed+len(rowItems)] = i
		rowItems = append(rowItems, ticket.ticket)
		rowItems = append(rowItems, s.put(event, "", nil, nil, false))
		// The tag index items, as a create writes them.
		rowItems = append(rowItems, ticket.tags...)
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
		chunkTaskAt:  s.put(task, cond, names, values, true),
		chunkCountAt: s.mustExist(workspaceKey(tx.Task.Workspace)), // nothing to count: the workspace must still exist
	}
	if imported > 0 {
		items[chunkCountAt] = s.countAdd(tx.Task.Workspace, shard, map[board.Status]int64{board.StatusCandidate: int64(imported)})
	}
	return append(items, rowItems...), at, taken, imported, nil
}
