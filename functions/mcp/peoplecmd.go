package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Exit codes of the admin commands.
const (
	exitOK      = 0
	exitFailed  = 1 // the command ran and was refused or failed (message on stderr)
	exitUsage   = 2 // the command line was wrong
	invitePath  = "/invite/"
	peopleUsage = `usage:
  people add <handle> [--admin] [--name <display name>] [--password-stdin]
      without --password-stdin: prints a one-time invitation link (valid 7 days)
  people invite <handle>     prints a new invitation link (a lost link, or a password reset)
  people disable <handle>    signs the person out everywhere and refuses their sign-ins
  people enable <handle>
  people list                one line per person: handle, role, state, name (tab-separated)
`
)

// command is one run of an admin command: the same binary and environment
// as the server, so it works on the local file and on a deployed table.
type command struct {
	args   []string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

// runPeople is `people add|invite|disable|enable|list`.
func (c command) runPeople(ctx context.Context) int {
	if len(c.args) < 2 {
		fmt.Fprint(c.stderr, peopleUsage)
		return exitUsage
	}
	sub, rest := c.args[1], c.args[2:]
	var (
		handle, name  string
		admin, stdinP bool
	)
	for i := 0; i < len(rest); i++ {
		switch a := rest[i]; {
		case a == "--admin" && sub == "add":
			admin = true
		case a == "--password-stdin" && sub == "add":
			stdinP = true
		case a == "--name" && sub == "add" && i+1 < len(rest):
			i++
			name = rest[i]
		case strings.HasPrefix(a, "--name=") && sub == "add":
			name = strings.TrimPrefix(a, "--name=")
		case strings.HasPrefix(a, "-"):
			return c.usage("unknown option %s for people %s", a, sub)
		case handle == "":
			handle = a
		default:
			return c.usage("unexpected argument %q", a)
		}
	}
	switch sub {
	case "list":
		if handle != "" {
			return c.usage("people list takes no arguments")
		}
	case "add", "invite", "disable", "enable":
		if handle == "" {
			return c.usage("people %s needs a handle", sub)
		}
	default:
		return c.usage("unknown command people %s", sub)
	}

	cfg, err := loadConfig(c.getenv)
	if err != nil {
		return c.fail(err)
	}
	needsLink := sub == "invite" || (sub == "add" && !stdinP)
	if needsLink && cfg.Store == storeDynamoDB && !cfg.BaseURLSet {
		return c.usage("set LEDGER_BASE_URL to the board's public URL (the stack's BaseUrl, e.g. https://<id>.execute-api.<region>.amazonaws.com) so the invitation link points there")
	}
	var password *string
	if stdinP {
		raw, err := io.ReadAll(io.LimitReader(c.stdin, 4*auth.MaxPassword+2))
		if err != nil {
			return c.fail(fmt.Errorf("reading the password from stdin: %w", err))
		}
		pw := strings.TrimSuffix(strings.TrimSuffix(string(raw), "\n"), "\r")
		password = &pw
	}
	accounts, closeStore, err := c.openAccounts(ctx, cfg)
	if err != nil {
		return c.fail(err)
	}
	defer closeStore()
	ctx = board.WithPrincipal(ctx, auth.Operator)
	link := func(secret string) int {
		fmt.Fprintln(c.stdout, strings.TrimRight(cfg.BaseURL, "/")+invitePath+secret)
		return exitOK
	}

	switch sub {
	case "add":
		role := board.RoleMember
		if admin {
			role = board.RoleAdmin
		}
		secret, err := accounts.AddPerson(ctx, auth.AddPersonInput{Handle: handle, Name: name, Role: role, Password: password})
		if err != nil {
			return c.fail(err)
		}
		if secret != "" {
			return link(secret)
		}
		return exitOK
	case "invite":
		secret, err := accounts.Invite(ctx, handle, "")
		if err != nil {
			return c.fail(err)
		}
		return link(secret)
	case "disable", "enable":
		if err := accounts.SetDisabled(ctx, handle, sub == "disable"); err != nil {
			return c.fail(err)
		}
		return exitOK
	default: // list
		people, err := accounts.People(ctx)
		if err != nil {
			return c.fail(err)
		}
		for _, p := range people {
			fmt.Fprintf(c.stdout, "%s\t%s\t%s\t%s\n", p.Handle, p.Role, personState(p), p.Name)
		}
		return exitOK
	}
}

// openAccounts opens the store the environment names, for the people and
// token use cases; warnings go to stderr.
func (c command) openAccounts(ctx context.Context, cfg config) (*auth.Accounts, func(), error) {
	log := slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cfg.adminCommand = true
	store, err := openStore(ctx, cfg, log, nil)
	if err != nil {
		return nil, nil, err
	}
	return auth.NewAccounts(auth.Config{Store: store, Logger: log}), func() { store.Close() }, nil
}

// personState is one word: disabled, invited (no password yet) or active.
func personState(p board.Person) string {
	switch {
	case p.Disabled:
		return "disabled"
	case p.PasswordHash == "":
		return "invited"
	}
	return "active"
}

func (c command) usage(format string, args ...any) int {
	fmt.Fprintf(c.stderr, "ticket-ledger: "+format+"\n\n", args...)
	if c.args[0] == "tokens" {
		fmt.Fprint(c.stderr, tokensUsage)
	} else {
		fmt.Fprint(c.stderr, peopleUsage)
	}
	return exitUsage
}

func (c command) fail(err error) int {
	var e *board.Error
	if errors.As(err, &e) {
		fmt.Fprintf(c.stderr, "ticket-ledger: %s\n", e.Message)
	} else {
		fmt.Fprintf(c.stderr, "ticket-ledger: %v\n", err)
	}
	return exitFailed
}
