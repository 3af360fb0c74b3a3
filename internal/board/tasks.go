package board

import (
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// TaskStatus is where a durable task stands. The values are the MCP tasks
// extension's, so the MCP adapter passes them through unchanged.
type TaskStatus string

const (
	// TaskWorking: the task is running, or started and about to run.
	TaskWorking TaskStatus = "working"
	// TaskInputRequired is the extension's status for a task waiting on its
	// caller; no task here needs input yet, so none enters it.
	TaskInputRequired TaskStatus = "input_required"
	// TaskCompleted: the task finished and its result can be fetched.
	TaskCompleted TaskStatus = "completed"
	// TaskFailed: the task stopped on an error retrying cannot fix; the
	// status message says which.
	TaskFailed TaskStatus = "failed"
	// TaskCancelled: the caller cancelled the task before it finished;
	// the tickets imported before the cancellation stay.
	TaskCancelled TaskStatus = "cancelled"
)

// TaskStatuses lists every status, active ones first.
var TaskStatuses = []TaskStatus{TaskWorking, TaskInputRequired, TaskCompleted, TaskFailed, TaskCancelled}

// Terminal reports whether a task in this status will never change again.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// activeStatuses are the statuses a task can leave.
var activeStatuses = []TaskStatus{TaskWorking, TaskInputRequired}

// Progress counts the rows of an import: Done of Total handled so far.
type Progress struct {
	Done  int `json:"done"`
	Total int `json:"total"`
}

// TaskError is why a task failed, in the shape of a JSON-RPC error (the MCP
// tasks extension inlines it as such).
type TaskError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Task is a durable unit of long work (an import) that any instance can
// report on and any runner can continue. Stores persist every field as is.
type Task struct {
	ID   string `json:"id"`
	Tool string `json:"tool"`
	// Request is the ledger key of the call that created the task: the
	// caller's namespace and request_id. Only that caller may see it.
	Request ledger.Key `json:"request"`
	// Author is who the work writes as (created_by of the tickets), and
	// OnBehalfOf whom an agent acted for (in the tickets' history).
	Author     string `json:"author"`
	OnBehalfOf string `json:"on_behalf_of,omitempty"`
	Workspace  string `json:"workspace"`
	// Credential is what the creating call was made with; every chunk
	// re-checks it, so a revocation stops the task.
	Credential Credential `json:"credential,omitempty"`
	Status     TaskStatus `json:"status"`
	// StopReason, on a task cancelled by the server rather than a caller,
	// says why (its status message includes it).
	StopReason string `json:"stop_reason,omitempty"`
	Message    string `json:"message"`
	// Cursor is the next staged row to import; Progress.Done equals it.
	Cursor   int      `json:"cursor"`
	Progress Progress `json:"progress"`
	// Imported counts the tickets this task created (rows another run of
	// the same request had already imported are done but not imported).
	Imported int `json:"imported"`
	// Plan marks an import whose rows carry keys or relations: once every
	// row is imported, its relations are written, then Keys answers the
	// ticket each key became.
	Plan   bool              `json:"plan,omitempty"`
	Keys   map[string]string `json:"keys,omitempty"`
	Result json.RawMessage   `json:"result,omitempty"`
	Error  *TaskError        `json:"error,omitempty"`
	// Execution names the runner's execution (a Step Functions execution
	// ARN on AWS, empty locally).
	Execution    string        `json:"execution,omitempty"`
	CreatedAt    time.Time     `json:"created_at"`
	UpdatedAt    time.Time     `json:"updated_at"`
	ExpiresAt    time.Time     `json:"expires_at"`
	PollInterval time.Duration `json:"poll_interval"`
}

// Expired reports whether the task is past its time to live: stores treat it
// as absent from then on.
func (t Task) Expired(now time.Time) bool { return !now.Before(t.ExpiresAt) }

// TaskView is what callers see of a task (get_task, find_request, REST).
type TaskView struct {
	TaskID         string          `json:"task_id"`
	Tool           string          `json:"tool"`
	RequestID      string          `json:"request_id"`
	Workspace      string          `json:"workspace"`
	Author         string          `json:"author" jsonschema:"who the task writes as: human:<handle> or ai:<name>"`
	OnBehalfOf     string          `json:"on_behalf_of,omitempty" jsonschema:"the person the agent acts for"`
	Status         TaskStatus      `json:"status"`
	StatusMessage  string          `json:"status_message"`
	Progress       Progress        `json:"progress"`
	Imported       int             `json:"imported"`
	Result         json.RawMessage `json:"result,omitempty" jsonschema:"the tool's result, once completed or cancelled"`
	Error          *TaskError      `json:"error,omitempty" jsonschema:"why the task failed"`
	CreatedAt      time.Time       `json:"created_at"`
	LastUpdatedAt  time.Time       `json:"last_updated_at"`
	TTLMs          int64           `json:"ttl_ms" jsonschema:"how long after created_at the task can be read, in milliseconds"`
	PollIntervalMs int64           `json:"poll_interval_ms" jsonschema:"how often to poll get_task, in milliseconds"`
}

// View is the caller's picture of the task.
func (t Task) View() TaskView {
	return TaskView{
		TaskID:         t.ID,
		Tool:           t.Tool,
		RequestID:      t.Request.RequestID,
		Workspace:      t.Workspace,
		Author:         t.Author,
		OnBehalfOf:     t.OnBehalfOf,
		Status:         t.Status,
		StatusMessage:  t.Message,
		Progress:       t.Progress,
		Imported:       t.Imported,
		Result:         t.Result,
		Error:          t.Error,
		CreatedAt:      t.CreatedAt,
		LastUpdatedAt:  t.UpdatedAt,
		TTLMs:          t.ExpiresAt.Sub(t.CreatedAt).Milliseconds(),
		PollIntervalMs: t.PollInterval.Milliseconds(),
	}
}

// TaskChangedError is returned by a store when a conditional task update
// found the task in another state than expected (cancelled, finished, or
// moved on by another run). It carries the task as it is now.
type TaskChangedError struct{ Task Task }

// Error says where the task stands now, for the log of the run that lost.
func (e *TaskChangedError) Error() string {
	return "task " + e.Task.ID + " is " + string(e.Task.Status) + " at row " + strconv.Itoa(e.Task.Cursor)
}

// isActive reports whether status is one a task can still leave.
func isActive(s TaskStatus) bool { return slices.Contains(activeStatuses, s) }
