// Command mcp is ticket-ledger's server and its composition root: it reads
// the configuration, opens the store, wires the use cases, the task runner
// and sign-in to every HTTP surface (/mcp, the REST API, OAuth, the web
// board, health) and holds the admin commands (people, tokens, backups,
// moving a board, reindexing). Inside Lambda (AWS_LAMBDA_RUNTIME_API set)
// it answers API Gateway HTTP API events on DynamoDB (lambda.go), built
// twice: without the web board for the agents' function (noboard) and
// whole for the people's; outside Lambda it serves on LEDGER_ADDR on the
// store LEDGER_STORE names (serve.go), which the Lambda build leaves out.
package main

import (
	"context"
	"os"
)

func main() {
	if isCommand(os.Args[1:]) {
		os.Exit(command{args: os.Args[1:], stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}.run(context.Background()))
	}
	log := newLogger(os.Getenv, os.Stderr)
	if inLambda() {
		runLambda(log)
		return
	}
	if err := run(log); err != nil {
		log.Error("ticket-ledger stopped", "err", err)
		os.Exit(1)
	}
}
