package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

const tokensUsage = `usage:
  tokens create --for <handle> [--agent <name>] [--label <text>]
      prints the new API token on stdout, once (it is stored only as a hash);
      with --agent the token is the agent ai:<name> acting for the person
  tokens list [--for <handle>]
      one line per token: id, person, author, state, created, last used, label (tab-separated)
  tokens revoke <id>          the token stops working at once, everywhere
`

// runTokens is `tokens create|list|revoke`: the operator manages anyone's
// API tokens, on the store the environment names.
func (c command) runTokens(ctx context.Context) int {
	if len(c.args) < 2 {
		return c.usage("tokens needs a command")
	}
	sub, rest := c.args[1], c.args[2:]
	var handle, agent, label, id string
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		opt, val, inline := strings.Cut(a, "=")
		takes := map[string]*string{"--for": &handle, "--agent": &agent, "--label": &label}
		switch dst, ok := takes[opt]; {
		case ok && (sub == "create" || (sub == "list" && opt == "--for")):
			if !inline {
				if i+1 >= len(rest) {
					return c.usage("%s needs a value", opt)
				}
				i++
				val = rest[i]
			}
			*dst = val
		case strings.HasPrefix(a, "-"):
			return c.usage("unknown option %s for tokens %s", opt, sub)
		case sub == "revoke" && id == "":
			id = a
		default:
			return c.usage("unexpected argument %q", a)
		}
	}
	switch sub {
	case "create":
		if handle == "" {
			return c.usage("tokens create needs --for <handle>: whose token it is")
		}
	case "revoke":
		if id == "" {
			return c.usage("tokens revoke needs the token's id (see tokens list)")
		}
	case "list":
	default:
		return c.usage("unknown command tokens %s", sub)
	}
	cfg, err := loadConfig(c.getenv)
	if err != nil {
		return c.fail(err)
	}
	accounts, closeStore, err := c.openAccounts(ctx, cfg)
	if err != nil {
		return c.fail(err)
	}
	defer closeStore()
	ctx = board.WithPrincipal(ctx, auth.Operator)

	switch sub {
	case "create":
		made, err := accounts.CreateToken(ctx, auth.CreateTokenInput{Handle: handle, Agent: agent, Label: label})
		if err != nil {
			return c.fail(err)
		}
		fmt.Fprintln(c.stdout, made.Secret)
		fmt.Fprintf(c.stderr, "ticket-ledger: token %s for %s (shown once; `tokens revoke %s` stops it)\n",
			made.Token.ID, board.DisplayAuthor(made.Token.Author(), onBehalf(made.Token)), made.Token.ID)
		return exitOK
	case "revoke":
		if _, err := accounts.RevokeToken(ctx, id); err != nil {
			return c.fail(err)
		}
		return exitOK
	default: // list
		tokens, err := accounts.Tokens(ctx, handle)
		if err != nil {
			return c.fail(err)
		}
		for _, t := range tokens {
			state, used := "active", "never"
			if t.RevokedAt != nil {
				state = "revoked " + stamp(*t.RevokedAt)
			}
			if t.LastUsedAt != nil {
				used = stamp(*t.LastUsedAt)
			}
			fmt.Fprintf(c.stdout, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Handle, t.Author(), state, stamp(t.CreatedAt), used, t.Label)
		}
		return exitOK
	}
}

// onBehalf is whom an agent's token acts for ("" for a person's own).
func onBehalf(t board.APIToken) string {
	if t.Agent == "" {
		return ""
	}
	return "human:" + t.Handle
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
