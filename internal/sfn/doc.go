// Package sfn runs durable tasks on AWS Step Functions: a board.TaskRunner
// that starts one Standard execution per task, named by the task id (so a
// second start of the same task is a no-op), and stops it when the task is
// cancelled. The execution loops functions/worker over the task's chunks
// (infra/statemachine.asl.json, docs/tasks.md).
package sfn
