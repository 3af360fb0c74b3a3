package board

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
	"github.com/ticket-ledger/ticket-ledger/internal/obs"
)

// The chunk worker: the one use case every runner drives (inline in the
// call, the local runner, the Step Functions worker). It imports staged
// rows in chunks, each chunk one store transaction that also advances the
// task's cursor and progress, so whatever stops it (a crash, a lost answer,
// a retry, a second runner) resumes from the task as stored and replays
// what was committed instead of importing it again.

const (
	// readRows is how many staged rows are read at once.
	readRows = 1000
	// chunkRows is the most rows offered to one ImportChunk; a store may
	// take fewer (DynamoDB: what fits 100 items of one transaction).
	chunkRows = 500
	// stopMargin: a run whose context ends sooner than this stops between
	// chunks rather than risk a chunk the deadline would interrupt.
	stopMargin = 3 * time.Second
)

// RunImport continues import task taskID from where it stands, chunk by
// chunk, until the task ends (completed, or found cancelled or failed),
// maxRows rows were handled in this run (0: no limit), or ctx is about to
// end. It returns the task as it then stands. Errors: RetryableTaskError
// tells the runners which are worth retrying and which fail the task.
func (s *Service) RunImport(ctx context.Context, taskID string, maxRows int) (Task, error) {
	task, err := s.store.GetTask(ctx, taskID, s.now())
	if errors.Is(err, ErrNotFound) {
		return Task{}, Errorf(CodeNotFound, "task %q not found (expired or never created)", taskID)
	}
	if err != nil {
		return Task{}, s.storeFailure(err)
	}
	var rows []json.RawMessage
	rowsFrom := -1
	handled := 0
	for {
		if task.Status.Terminal() {
			s.settleRequest(ctx, task)
			return task, nil
		}
		if task.Status != TaskWorking {
			return task, nil // waiting for input: nothing to run
		}
		if task.Cursor >= task.Progress.Total {
			if task.Plan {
				return s.finishPlan(ctx, task)
			}
			return s.finishImport(ctx, task)
		}
		if (maxRows > 0 && handled >= maxRows) || nearDeadline(ctx) {
			return task, nil
		}
		if rowsFrom < 0 || task.Cursor < rowsFrom || task.Cursor >= rowsFrom+len(rows) {
			if rows, err = s.store.StagedRows(ctx, task.ID, task.Cursor, readRows); err != nil {
				return task, s.storeFailure(err)
			}
			if len(rows) == 0 {
				// Rows go when their task ends: it may have ended just now.
				current, err := s.store.GetTask(ctx, task.ID, s.now())
				if err == nil && current.Status != task.Status {
					task, rowsFrom = current, -1
					continue
				}
				return task, Errorf(CodeInvalid, "task %s has no staged row %d of %d", task.ID, task.Cursor, task.Progress.Total)
			}
			rowsFrom = task.Cursor
		}
		// The credential is re-read before every chunk: a revocation, a
		// disconnect or a disable stops the import within one chunk, on
		// whichever runner runs it.
		switch holds, err := s.credentialHolds(ctx, task); {
		case err != nil:
			return task, s.storeFailure(err)
		case !holds:
			return s.stopRevoked(ctx, task)
		}
		chunk := rows[task.Cursor-rowsFrom:]
		if len(chunk) > chunkRows {
			chunk = chunk[:chunkRows]
		}
		if maxRows > 0 && len(chunk) > maxRows-handled {
			chunk = chunk[:maxRows-handled]
		}
		next, err := s.importChunk(ctx, task, chunk)
		var changed *TaskChangedError
		switch {
		case errors.As(err, &changed):
			// Cancelled, failed, or moved on by another run (or by this
			// one, whose answer was lost): continue from what is stored.
			task = changed.Task
			continue
		case err != nil:
			return task, err
		}
		handled += next.Cursor - task.Cursor
		obs.CountRowsImported(ctx, next.Cursor-task.Cursor) // the runner's metrics
		task = next
	}
}

func nearDeadline(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ok && time.Until(d) < stopMargin
}

// importChunk commits a prefix of rows (staged rows from task.Cursor on).
func (s *Service) importChunk(ctx context.Context, task Task, rows []json.RawMessage) (Task, error) {
	now := s.now()
	p := Principal{Author: task.Author, OnBehalfOf: task.OnBehalfOf, Source: SourceTask}
	chunk := make([]ChunkRow, len(rows))
	for i, raw := range rows {
		index := task.Cursor + i
		var in NewTicket
		if err := json.Unmarshal(raw, &in); err != nil {
			return task, Errorf(CodeInvalid, "staged row %d of task %s cannot be read: %v", index, task.ID, err)
		}
		rec := ledger.NewRecord(RowKey(task.Request, index), ToolImportTickets, nil, now, s.retention)
		rec.Fingerprint = ledger.Fingerprint(raw)
		chunk[i] = ChunkRow{Index: index, Record: rec, Input: in}
	}
	var allowed []AIPolicy
	if p.IsAI() {
		allowed = []AIPolicy{PolicyReadWrite}
	}
	tx := ChunkTx{
		Task:            task,
		Rows:            chunk,
		AllowedPolicies: allowed,
		Build: func(row ChunkRow, number int64) (CreatePlan, error) {
			return s.importPlan(task, p, row, number, now)
		},
		After: func(taken, imported int) Task {
			t := task
			t.Cursor += taken
			t.Progress.Done = t.Cursor
			t.Imported += imported
			t.UpdatedAt = now
			t.Message = progressMessage(t)
			return t
		},
	}
	for attempt := 0; attempt < maxAttempts; attempt++ {
		next, err := s.store.ImportChunk(ctx, tx)
		var denied *PolicyError
		switch {
		case errors.Is(err, ErrVersionConflict):
			continue // the workspace counter moved: the store rebuilds
		case errors.Is(err, ErrNotFound):
			return task, workspaceNotFound(task.Workspace)
		case errors.As(err, &denied):
			return task, writeDenied(p, task.Workspace, denied.Policy)
		case err != nil:
			var changed *TaskChangedError
			if errors.As(err, &changed) {
				return task, err
			}
			return task, s.storeFailure(err)
		}
		return next, nil
	}
	return task, Errorf(CodeInternal, "workspace '%s' kept changing while task %s imported into it; the task continues on retry", task.Workspace, task.ID)
}

// importPlan is the ticket, event and row result of one imported row.
func (s *Service) importPlan(task Task, p Principal, row ChunkRow, number int64, now time.Time) (CreatePlan, error) {
	t, ev := s.newTicket(task.Workspace, number, row.Input, p, SourceTask, row.Record.Key.RequestID, now)
	result, err := json.Marshal(ImportedRow{TaskID: task.ID, Row: row.Index, TicketID: t.ID})
	return CreatePlan{Ticket: t, Event: ev, Result: result}, err
}

// ImportedRow is the stored result of one row's record.
type ImportedRow struct {
	TaskID   string `json:"task_id"`
	Row      int    `json:"row"`
	TicketID string `json:"ticket_id"`
}

// finishImport marks a task whose every row is handled as completed.
func (s *Service) finishImport(ctx context.Context, task Task) (Task, error) {
	return s.endTask(ctx, task, func(t *Task) { t.Status = TaskCompleted })
}

// endTask moves an active task to a terminal status with end, then stores
// the final result in the request record. It re-reads and retries when
// the task moved meanwhile; a task that is terminal already stays as it is
// (a cancelled task is never completed later).
func (s *Service) endTask(ctx context.Context, task Task, end func(t *Task)) (Task, error) {
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if task.Status.Terminal() {
			s.settleRequest(ctx, task)
			return task, nil
		}
		next := task
		end(&next)
		next.UpdatedAt = s.now()
		next.Message = progressMessage(next)
		result, err := json.Marshal(importResult(next))
		if err != nil {
			return task, s.storeFailure(err)
		}
		next.Result = result
		err = s.store.UpdateTask(ctx, next, activeStatuses)
		var changed *TaskChangedError
		switch {
		case errors.As(err, &changed):
			task = changed.Task
			continue
		case err != nil:
			return task, s.storeFailure(err)
		}
		s.settleRequest(ctx, next)
		return next, nil
	}
	return task, Errorf(CodeInternal, "task %s kept changing; retry", task.ID)
}

// settleRequest stores a terminal task's result in its request record, so
// a retry of the import replays it. The task holds the truth; this only
// saves a retry from reading it. Fenced by the task id (the claim's owner):
// a record already settled or taken over stays as it is.
func (s *Service) settleRequest(ctx context.Context, task Task) {
	if len(task.Result) == 0 {
		return
	}
	err := s.store.CompleteRequest(context.WithoutCancel(ctx), task.Request, task.ID, task.Result)
	if err != nil && !errors.Is(err, ErrNotOwner) {
		s.log.Warn("storing an ended task's result in its request record failed; a retry reads the task instead", "task", task.ID, "err", err)
	}
}

// RetryableTaskError says whether an error of RunImport or FailTask is
// transient (the store failed or was unreachable: retrying is safe, as
// every chunk is exactly-once, and may succeed) or permanent (the
// workspace is gone or refuses the writer, a staged row is unreadable:
// the task is to be failed). Both task runners, in-process and Step
// Functions, decide by this one rule.
func RetryableTaskError(err error) bool { return ErrorCode(err) == CodeInternal }
