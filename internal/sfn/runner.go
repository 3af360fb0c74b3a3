package sfn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// API is the part of the Step Functions client the runner uses.
type API interface {
	StartExecution(ctx context.Context, in *sfn.StartExecutionInput, opts ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error)
	StopExecution(ctx context.Context, in *sfn.StopExecutionInput, opts ...func(*sfn.Options)) (*sfn.StopExecutionOutput, error)
}

// Runner starts and stops executions of one state machine.
type Runner struct {
	api          API
	stateMachine string // ARN
}

var _ board.TaskRunner = (*Runner)(nil)

// NewRunner returns a runner for the state machine with this ARN.
func NewRunner(api API, stateMachineARN string) (*Runner, error) {
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
	_, err = r.api.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: aws.String(r.stateMachine),
		Name:            aws.String(t.ID),
		Input:           aws.String(string(in)),
	})
	var exists *types.ExecutionAlreadyExists
	if errors.As(err, &exists) {
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
	_, err := r.api.StopExecution(ctx, &sfn.StopExecutionInput{
		ExecutionArn: aws.String(arn),
		Error:        aws.String("TaskCancelled"),
		Cause:        aws.String("the task was cancelled (tasks/cancel or cancel_task)"),
	})
	var missing *types.ExecutionDoesNotExist
	if errors.As(err, &missing) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sfn: stopping the execution of task %s: %w", t.ID, err)
	}
	return nil
}
