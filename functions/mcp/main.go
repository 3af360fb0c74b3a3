// Command mcp is ticket-ledger's one HTTP function: /mcp, the web board and
// health, and the admin commands (people …). Inside
// Lambda (AWS_LAMBDA_RUNTIME_API set) it answers API Gateway HTTP API events
// on DynamoDB (lambda.go); outside it serves locally on LEDGER_ADDR on the
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
