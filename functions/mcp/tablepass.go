package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
)

// tablePass is an admin command that goes over every ticket of the
// DynamoDB table, workspace by workspace, and resumes with --from where a
// run stopped (reindex-words, backfill-claims).
type tablePass struct {
	name     string // as typed
	usage    string
	onSQLite string // what does the pass's work on the SQLite store
	// run makes the pass from from, calling progress with each
	// workspace's count, and says what it wrote.
	run func(ctx context.Context, ds *dynamo.Store, from dynamo.ReindexFrom, progress func(ws string, n int)) (summary string, err error)
}

// runTablePass reads the command's arguments, opens the DynamoDB store and
// makes the pass: each workspace's count on stdout, what it wrote on
// stderr, and where to resume when it stops.
func (c command) runTablePass(ctx context.Context, p tablePass) int {
	var from dynamo.ReindexFrom
	switch {
	case len(c.args) == 1:
	case len(c.args) == 3 && c.args[1] == "--from":
		var err error
		if from, err = parseReindexFrom(c.args[2]); err != nil {
			fmt.Fprintf(c.stderr, "ticket-ledger: %v\n%s", err, p.usage)
			return exitUsage
		}
	default:
		fmt.Fprint(c.stderr, p.usage)
		return exitUsage
	}
	cfg, err := loadConfig(c.getenv)
	if err != nil {
		return c.fail(err)
	}
	if cfg.Store != storeDynamoDB {
		fmt.Fprintf(c.stderr, "ticket-ledger: %s is for the DynamoDB store; LEDGER_STORE is %s, %s\n", p.name, cfg.Store, p.onSQLite)
		return exitFailed
	}
	cfg.adminCommand = true
	st, err := openStore(ctx, cfg, slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})), nil)
	if err != nil {
		return c.fail(err)
	}
	defer st.Close()
	ds, ok := st.(*dynamo.Store)
	if !ok {
		return c.fail(fmt.Errorf("the DynamoDB store is a %T", st))
	}
	summary, err := p.run(ctx, ds, from, func(ws string, n int) { fmt.Fprintf(c.stdout, "%s\t%d tickets\n", ws, n) })
	fmt.Fprintln(c.stderr, summary)
	var stopped *dynamo.ReindexError
	if errors.As(err, &stopped) {
		fmt.Fprintf(c.stderr, "ticket-ledger: %v\nresume with: %s --from %s-%d\n", stopped.Err, p.name, stopped.Resume.Workspace, stopped.Resume.Number)
		return exitFailed
	}
	if err != nil {
		return c.fail(err)
	}
	return exitOK
}

// parseReindexFrom reads --from: a ticket id, or <workspace>-0 for a
// workspace's newest (what a pass that stopped between two workspaces
// prints; no ticket id has the number 0).
func parseReindexFrom(s string) (dynamo.ReindexFrom, error) {
	if ws, ok := strings.CutSuffix(s, "-0"); ok && board.ValidateSlug(ws) == nil {
		return dynamo.ReindexFrom{Workspace: ws}, nil
	}
	ws, n, err := board.ParseTicketID(s)
	if err == nil {
		err = board.ValidateSlug(ws)
	}
	if err != nil || n < 0 {
		return dynamo.ReindexFrom{}, fmt.Errorf("--from %q is not a ticket id (as in inbox-1234, or inbox-0 for inbox's newest)", s)
	}
	return dynamo.ReindexFrom{Workspace: ws, Number: n}, nil
}
