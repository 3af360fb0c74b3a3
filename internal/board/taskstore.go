package board

import (
	"context"
	"encoding/json"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// TaskStore is the storage contract of durable tasks and the imports they
// run. It is part of Store (every backend implements it and runs the same
// storetest suite), kept in its own interface so it reads as one piece.
type TaskStore interface {
	// CreateTask commits a new task together with its staged rows (row i
	// of the import is rows[i]), so a runner never sees a task without its
	// input. The task id must be new.
	CreateTask(ctx context.Context, t Task, rows []json.RawMessage) error
	// GetTask returns the task, or ErrNotFound when there is none or it
	// has expired at now.
	GetTask(ctx context.Context, id string, now time.Time) (Task, error)
	// StagedRows returns up to n staged rows of a task from row from on
	// (fewer at the end of the import).
	StagedRows(ctx context.Context, taskID string, from, n int) ([]json.RawMessage, error)
	// ImportChunk imports a prefix of tx.Rows (as many as fit one of the
	// store's transactions, at least one) and advances the task, in one
	// transaction. See ChunkTx.
	ImportChunk(ctx context.Context, tx ChunkTx) (Task, error)
	// UpdateTask stores t's status, message, progress, result, error and
	// updated_at, only while the stored task's status is one of from and
	// its cursor is still t.Cursor; otherwise *TaskChangedError with the
	// task as stored.
	UpdateTask(ctx context.Context, t Task, from []TaskStatus) error
	// UnfinishedTasks lists the unexpired tasks whose status is not
	// terminal, oldest first: what a local runner resumes after a restart.
	UnfinishedTasks(ctx context.Context, now time.Time) ([]Task, error)
}

// ChunkTx asks a store to import rows of a task. In one transaction the
// store:
//   - checks that the task is still working with its cursor at
//     Task.Cursor, otherwise *TaskChangedError carrying the stored task
//     (it was cancelled, or another run imported the chunk already);
//   - checks the workspace exists (ErrNotFound) and, when
//     AllowedPolicies is not nil, that its policy is allowed (*PolicyError);
//   - for each row of the prefix it takes, skips the row when an unexpired
//     record holds the row's key (another run imported it: each row is
//     imported once), else takes the workspace's next number, calls Build
//     and commits the ticket, its event and the row's record with the
//     plan's result;
//   - stores After(rows taken, rows imported) as the task.
type ChunkTx struct {
	Task            Task
	Rows            []ChunkRow
	AllowedPolicies []AIPolicy
	Build           func(row ChunkRow, number int64) (CreatePlan, error)
	After           func(taken, imported int) Task
}

// ChunkRow is one staged row about to be imported.
type ChunkRow struct {
	Index int
	// Record is the row's own ledger record, keyed <request_id>#<row>;
	// Build's plan supplies its result.
	Record ledger.Record
	Input  NewTicket
}
