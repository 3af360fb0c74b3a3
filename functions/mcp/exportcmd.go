//go:build !lambda

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/boardfile"
)

const exportUsage = `usage:
  export [--workspace <slug>] [--with-people] > board.jsonl
      writes the board of the store LEDGER_STORE names as JSON lines on stdout: workspaces,
      tickets, notes, history, the request records still inside their retention window and
      webhook subscriptions without their signing secrets; --with-people adds people, API
      tokens and connected agents (OAuth clients, grants that can still be used and their
      tokens): hashes, never secrets; and the webhooks' signing secrets, sealed, with the key
      that opens them: keep such a file as you keep the store
  import-board [--merge=skip|fail] [--with-people] < board.jsonl
      puts an export into the store LEDGER_STORE names. The target must be empty (a fresh
      store) or hold a stopped run of the same file's import, which is resumed; --merge=skip
      keeps the target's copy of every clashing item and adds the rest, --merge=fail adds but
      stops at the first clash. Running it again writes nothing twice.
      --with-people also adds the file's people, API tokens and connected agents, and the
      webhooks' signing secrets (the file must be exported with --with-people); without it
      they are skipped, and webhooks arrive paused without a secret. A person the target
      already holds otherwise is never changed, and gains no token or grant from the file.
`

// runExport is `export`: the data on stdout, a summary on stderr.
func (c command) runExport(ctx context.Context) int {
	opts := boardfile.ExportOptions{Now: time.Now()}
	rest := c.args[1:]
	for i := 0; i < len(rest); i++ {
		switch a := rest[i]; {
		case a == "--with-people":
			opts.WithPeople = true
		case a == "--workspace" && i+1 < len(rest):
			i++
			opts.Workspace = rest[i]
		case strings.HasPrefix(a, "--workspace="):
			opts.Workspace = strings.TrimPrefix(a, "--workspace=")
		default:
			return c.moveUsage("unexpected argument %q for export", a)
		}
	}
	store, closeStore, err := c.openTransferStore(ctx)
	if err != nil {
		return c.fail(err)
	}
	defer closeStore()
	src, ok := store.(boardfile.Source)
	if !ok {
		return c.fail(errors.New("this store cannot export a board"))
	}
	start := time.Now()
	counts, err := boardfile.Export(ctx, src, c.stdout, opts)
	if err != nil {
		return c.fail(fmt.Errorf("export stopped: %w; the output is incomplete (it has no end line, so an import refuses it)", err))
	}
	fmt.Fprintf(c.stderr, "exported %s in %s\n", countsLine(counts), time.Since(start).Round(time.Millisecond))
	return exitOK
}

// runImportBoard is `import-board`: reads stdin; collisions kept and the
// summary go to stderr.
func (c command) runImportBoard(ctx context.Context) int {
	opts := boardfile.LoadOptions{Now: time.Now(), Collisions: c.stderr}
	for _, a := range c.args[1:] {
		switch {
		case strings.HasPrefix(a, "--merge="):
			m, err := boardfile.ParseMerge(strings.TrimPrefix(a, "--merge="))
			if err != nil {
				return c.moveUsage("%v", err)
			}
			opts.Merge = m
		case a == "--with-people":
			opts.WithPeople = true
		default:
			return c.moveUsage("unexpected argument %q for import-board", a)
		}
	}
	store, closeStore, err := c.openTransferStore(ctx)
	if err != nil {
		return c.fail(err)
	}
	defer closeStore()
	dst, ok := store.(boardfile.Target)
	if !ok {
		return c.fail(errors.New("this store cannot import a board"))
	}
	start := time.Now()
	res, err := boardfile.Load(ctx, dst, c.stdin, opts)
	summary := fmt.Sprintf("written %s; already there %s; kept the target's %s; skipped %s; %d lines in %s",
		countsLine(res.Written), countsLine(res.AlreadyThere), countsLine(res.Kept), countsLine(res.Skipped),
		res.Lines, time.Since(start).Round(time.Millisecond))
	if err != nil {
		fmt.Fprintf(c.stderr, "ticket-ledger: import-board stopped: %v\n%s\n", err, summary)
		return exitFailed
	}
	fmt.Fprintln(c.stderr, "imported: "+summary)
	if !opts.WithPeople && res.Skipped[boardfile.KindPerson] > 0 {
		fmt.Fprintln(c.stderr, "the file's people, API tokens and connected agents were left out: import it again with --with-people to add them")
	}
	if n := res.Written[boardfile.KindWebhook]; n > 0 && !opts.WithPeople {
		fmt.Fprintf(c.stderr, "%d webhooks arrived paused, without their signing secrets: subscribe their URLs again, or import a file exported --with-people with --with-people\n", n)
	}
	return exitOK
}

// openTransferStore opens the store the environment names, as the other admin
// commands do.
func (c command) openTransferStore(ctx context.Context) (openedStore, func(), error) {
	cfg, err := loadConfig(c.getenv)
	if err != nil {
		return nil, nil, err
	}
	cfg.adminCommand = true
	log := slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	store, err := openStore(ctx, cfg, log, nil)
	if err != nil {
		return nil, nil, err
	}
	return store, func() { store.Close() }, nil
}

// countsLine is "3 workspace, 120 ticket, …" in the file's order of kinds.
func countsLine(counts boardfile.Counts) string {
	var parts []string
	for _, k := range boardfile.Kinds() {
		if n := counts[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

func (c command) moveUsage(format string, args ...any) int {
	fmt.Fprintf(c.stderr, "ticket-ledger: "+format+"\n\n", args...)
	fmt.Fprint(c.stderr, exportUsage)
	return exitUsage
}
