// Package tasks runs durable tasks in this process: the local runner of
// `make run`. Each task runs in its own goroutine, driving the chunk worker
// (board.Service.RunImport) until the task ends; on start the runner
// resumes every unfinished task, so an import survives a restart or a
// SIGKILL and imports each row exactly once (the chunk worker's guarantee,
// not the runner's). On AWS, internal/sfn starts Step Functions executions
// that drive the same chunk worker from a Lambda function.
package tasks
