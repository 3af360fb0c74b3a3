package main

import (
	"context"
	"fmt"
)

// commandsUsage lists what the binary does besides serving.
const commandsUsage = `usage: ticket-ledger [command]
  (no command)      run the server, configured by LEDGER_* variables (docs/configuration.md)
  people <command>  people and their sign-in: add, invite, disable, enable, list
  tokens <command>  API tokens: create, list, revoke
  backup <file>     copy the local store while the server runs
  export            write the board as JSON lines on stdout: [--workspace <slug>] [--with-people]
  import-board      read an export from stdin into this store: [--merge=skip|fail]
  reindex-words     write the DynamoDB search index of every ticket (tables made before word search)
  backfill-claims   write the DynamoDB claimable index of every ticket (tables made before claims)
  help              this list
`

// isCommand reports whether the arguments name a command rather than the
// server: the server takes no arguments, so any argument is a command, and
// one this binary does not know is refused (run) instead of starting a
// server the caller did not ask for.
func isCommand(args []string) bool { return len(args) > 0 }

// run executes the command and returns the process's exit code. Only the
// asked-for value goes to stdout; everything else to stderr.
func (c command) run(ctx context.Context) int {
	switch c.args[0] {
	case "people":
		return c.runPeople(ctx)
	case "tokens":
		return c.runTokens(ctx)
	case "backup":
		return c.runBackup(ctx)
	case "export":
		return c.runExport(ctx)
	case "import-board":
		return c.runImportBoard(ctx)
	case "reindex-words":
		return c.runReindexWords(ctx)
	case "backfill-claims":
		return c.runBackfillClaims(ctx)
	case "help", "--help", "-h":
		fmt.Fprint(c.stdout, commandsUsage)
		return exitOK
	}
	fmt.Fprintf(c.stderr, "ticket-ledger: unknown command %q\n\n%s", c.args[0], commandsUsage)
	return exitUsage
}
