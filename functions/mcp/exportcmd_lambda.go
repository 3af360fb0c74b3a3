//go:build lambda

package main

import (
	"context"
	"fmt"
)

// The Lambda build (-tags lambda) leaves moving a board out: a function
// never runs admin commands, and the local build reaches a deployed table
// with the same environment (docs/backup.md).

func (c command) runExport(context.Context) int { return c.moveRefused() }

func (c command) runImportBoard(context.Context) int { return c.moveRefused() }

func (c command) moveRefused() int {
	fmt.Fprintln(c.stderr, "ticket-ledger: this build (-tags lambda) cannot export or import a board; run the command with the local build and LEDGER_STORE=dynamodb")
	return exitFailed
}
