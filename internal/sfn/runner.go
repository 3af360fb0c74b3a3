package sfn

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Runner starts and stops executions of one state machine.
type Runner struct {
	api          *Client
	stateMachine string // ARN
}

var _ board.TaskRunner = (*Runner)(nil)

// NewRunner returns a runner for the state machine with this ARN.
func NewRunner(api *Client, stateMachineARN string) (*Runner, error) {
	if !strings.Contains(stateMachineARN, ":stateMachine:") {
		return nil, fmt.Errorf("sfn: %q is not a state machine ARN (arn:aws:states:<region>:<account>:stateMachine:<name>)", stateMachineARN)
	}
	return &Runner{api: api, stateMachine: stateMachineARN}, nil
}

// Input is what an execution starts with and what the worker passes from
// one loop to the next: only the task id and the cursor (the rows stay in
// the store; an execution's state is limited to 256 KiB).
type Input struct {
	TaskID string `json:"task_id"`
	Cursor int    `json:"cursor"`
}

// Reference is the ARN the task's execution has: executions are named by
// the task id.
func (r *Runner) Reference(t board.Task) string {
	return strings.Replace(r.stateMachine, ":stateMachine:", ":execution:", 1) + ":" + t.ID
}

// Start starts the task's execution. The name is the task id and the input
// is the same for every start of a task, so starting a task whose execution
// exists already is a no-op (Step Functions answers the existing one).
func (r *Runner) Start(ctx context.Context, t board.Task) error {
	in, err := json.Marshal(Input{TaskID: t.ID})
	if err != nil {
		return err
	}
	err = r.api.StartExecution(ctx, StartExecutionInput{StateMachineArn: r.stateMachine, Name: t.ID, Input: string(in)})
	if errorCode(err) == "ExecutionAlreadyExists" {
		// The name was used with other input; ours is always the same, so
		// this is the task's own execution.
		return nil
	}
	if err != nil {
		return fmt.Errorf("sfn: starting the execution of task %s: %w", t.ID, err)
	}
	return nil
}

// Stop stops the task's execution. One that already ended is no error.
func (r *Runner) Stop(ctx context.Context, t board.Task) error {
	arn := t.Execution
	if arn == "" {
		arn = r.Reference(t)
	}
	err := r.api.StopExecution(ctx, StopExecutionInput{ExecutionArn: arn, Error: "TaskCancelled",
		Cause: "the task was cancelled (tasks/cancel or cancel_task)"})
	if errorCode(err) == "ExecutionDoesNotExist" {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sfn: stopping the execution of task %s: %w", t.ID, err)
	}
	return nil
}
