package sfn

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Worker answers the state machine's Lambda invocations
// (infra/statemachine.asl.json): "run" continues a task's import for one
// invocation's worth of chunks, "fail" marks it failed after the state
// machine gave up on it.
type Worker struct {
	Svc *board.Service
	// MaxRows bounds the rows one invocation handles (0: until the
	// invocation's deadline is near). Each run ends between chunks, so the
	// state machine's loop carries on from the stored cursor.
	MaxRows int
}

// Event is a worker invocation: Input plus what the state machine adds.
type Event struct {
	Action string `json:"action"` // "run" (default) or "fail"
	TaskID string `json:"task_id"`
	Cursor int    `json:"cursor"`
	// Failure is what the state machine caught (on "fail").
	Failure *struct {
		Error string `json:"Error"`
		Cause string `json:"Cause"`
	} `json:"failure,omitempty"`
}

// Output is the next state's input: Input plus whether the task ended.
type Output struct {
	TaskID string `json:"task_id"`
	Cursor int    `json:"cursor"`
	Done   bool   `json:"done"`
	Status string `json:"status"`
}

// Transient is an error worth retrying (storage throttled or unreachable):
// the state machine's Retry names its type. Lambda reports a handler
// error's type as the error's Go type name.
type Transient struct{ Message string }

// Error is the message; the Go type name, not the text, is what the state
// machine matches.
func (e *Transient) Error() string { return e.Message }

// ImportFailed is an error retrying cannot fix (the workspace is gone or
// refuses the writer, a staged row is unreadable): the state machine's
// Catch marks the task failed.
type ImportFailed struct{ Message string }

// Error is the message; the Go type name, not the text, is what the state
// machine's Catch matches.
func (e *ImportFailed) Error() string { return e.Message }

// Handle is the Lambda handler.
func (w *Worker) Handle(ctx context.Context, ev Event) (Output, error) {
	if ev.TaskID == "" {
		return Output{}, &ImportFailed{Message: "the event names no task_id"}
	}
	switch ev.Action {
	case "", "run":
		t, err := w.Svc.RunImport(ctx, ev.TaskID, w.MaxRows)
		if err != nil {
			if board.RetryableTaskError(err) {
				return Output{}, &Transient{Message: err.Error()}
			}
			return Output{}, &ImportFailed{Message: err.Error()}
		}
		return Output{TaskID: t.ID, Cursor: t.Cursor, Done: t.Status != board.TaskWorking, Status: string(t.Status)}, nil
	case "fail":
		cause := "the import stopped with an error"
		if ev.Failure != nil {
			cause = failureCause(ev.Failure.Error, ev.Failure.Cause)
		}
		t, err := w.Svc.FailTask(ctx, ev.TaskID, cause)
		if err != nil {
			if board.RetryableTaskError(err) {
				return Output{}, &Transient{Message: err.Error()}
			}
			return Output{}, &ImportFailed{Message: err.Error()}
		}
		return Output{TaskID: t.ID, Cursor: t.Cursor, Done: true, Status: string(t.Status)}, nil
	}
	return Output{}, &ImportFailed{Message: fmt.Sprintf("unknown action %q", ev.Action)}
}

// failureCause reads what Step Functions caught: Cause holds the Lambda
// error as JSON ({"errorMessage", "errorType"}) when it came from the
// worker; otherwise it is text.
func failureCause(name, cause string) string {
	var lambdaErr struct {
		ErrorMessage string `json:"errorMessage"`
	}
	if json.Unmarshal([]byte(cause), &lambdaErr) == nil && lambdaErr.ErrorMessage != "" {
		return lambdaErr.ErrorMessage
	}
	if cause == "" {
		return name
	}
	return cause
}
