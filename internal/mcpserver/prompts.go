package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Prompts are what a person starts from a slash command in Claude Code
// (/mcp__ticket-ledger__triage inbox): they put the tickets that matter for
// the job into the conversation, read through the same use cases and policy
// as the tools, with instructions for the model. They are bounded like
// everything else: a few dozen tickets a section, excerpts instead of
// bodies, and a pointer to the tool that reads the rest.

const (
	promptTickets = 30  // tickets listed per section
	excerptChars  = 300 // of a ticket's description, in triage
)

var workspaceArgument = &mcp.PromptArgument{
	Name:        "workspace",
	Title:       "Workspace",
	Description: "the workspace's slug, e.g. inbox (list_workspaces shows them)",
	Required:    true,
}

func registerPrompts(s *mcp.Server, svc *board.Service, who PrincipalFunc) {
	s.AddPrompt(&mcp.Prompt{
		Name:        "triage",
		Title:       "Triage a workspace",
		Description: "Put a workspace's candidate and waiting_ai tickets (unowned first) into the conversation, with instructions to set priority and owner and move each one using the tools.",
		Arguments:   []*mcp.PromptArgument{workspaceArgument},
	}, promptHandler(svc, who, []string{"workspace"}, triagePrompt))

	s.AddPrompt(&mcp.Prompt{
		Name:        "standup",
		Title:       "Stand-up for a workspace",
		Description: "Put what changed in a workspace since a time, what is in doing and what waits for a person into the conversation, to write a stand-up from.",
		Arguments: []*mcp.PromptArgument{workspaceArgument, {
			Name:        "since",
			Title:       "Since",
			Description: "where the period starts: a date (2026-12-01), an RFC 3339 time, today, yesterday, a duration (36h) or days (3d); default the last 24 hours",
		}},
	}, promptHandler(svc, who, []string{"workspace", "since"}, standupPrompt))
}

// promptHandler checks a prompt's arguments (only the known ones; a
// workspace named), sets the principal, and turns a refusal into a JSON-RPC
// error that says what to do next.
func promptHandler(svc *board.Service, who PrincipalFunc, known []string,
	build func(ctx context.Context, svc *board.Service, args map[string]string) (string, error)) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		ctx = board.WithPrincipal(ctx, who(ctx, req.Extra))
		args := req.Params.Arguments
		for name := range args {
			if !slices.Contains(known, name) {
				return nil, invalidParams("the %s prompt has no argument %q; its arguments are %s", req.Params.Name, name, strings.Join(known, ", "))
			}
		}
		if strings.TrimSpace(args["workspace"]) == "" {
			return nil, invalidParams("the %s prompt needs the workspace argument: the slug of a workspace%s", req.Params.Name, yourWorkspaces(ctx, svc))
		}
		text, err := gatedText(ctx, func() (string, error) { return build(ctx, svc, args) })
		board.Observe(ctx, nil, err)
		if board.ErrorCode(err) == board.CodeNotFound {
			return nil, invalidParams("%s%s", err.Error(), yourWorkspaces(ctx, svc))
		}
		if err != nil {
			return nil, rpcError(err, "")
		}
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
	}
}

// yourWorkspaces names the workspaces the caller may use, for a refusal:
// only the visible ones, so it gives nothing hidden away.
func yourWorkspaces(ctx context.Context, svc *board.Service) string {
	ws, err := svc.ListWorkspaces(ctx)
	if err != nil || len(ws.Workspaces) == 0 {
		return ""
	}
	var slugs []string
	for _, w := range ws.Workspaces[:min(len(ws.Workspaces), 20)] {
		slugs = append(slugs, w.Slug)
	}
	return fmt.Sprintf(". Workspaces you can use: %s", strings.Join(slugs, ", "))
}

func triagePrompt(ctx context.Context, svc *board.Service, args map[string]string) (string, error) {
	slug := strings.TrimSpace(args["workspace"])
	sum, err := svc.GetWorkspaceSummary(ctx, board.WorkspaceInput{Workspace: slug})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Triage the workspace %s (%s) on the ticket board.\n\n", sum.Workspace.Name, slug)
	if sum.Workspace.AIPolicy == board.PolicyReadOnly {
		b.WriteString("This workspace is read-only for you: do not call write tools here. For each ticket below, propose a priority, an owner and a status to the person instead.\n\n")
	} else {
		b.WriteString(`For each ticket below, unowned ones first:
1. Read it with get_ticket when the excerpt is not enough to decide.
2. Set its priority (low, normal, high, urgent) and owner with update_ticket.
3. Move it with move_ticket: to doing when someone takes it up now, waiting_human when a person must decide or answer, hold when it is parked on purpose, done when nothing is left to do; leave it a candidate when it still needs discussion. Give a short reason.
Every write takes a request_id: a new one for each change. After an error or a lost connection call find_request with that request_id before retrying, and retry with the same request_id and the same arguments.
When you are done, sum up what you changed and what needs a person.

`)
	}
	for _, st := range []board.Status{board.StatusCandidate, board.StatusWaitingAI} {
		if err := ticketSection(ctx, &b, svc, slug, st, true); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

func standupPrompt(ctx context.Context, svc *board.Service, args map[string]string) (string, error) {
	slug := strings.TrimSpace(args["workspace"])
	since, err := parseSince(args["since"], time.Now())
	if err != nil {
		return "", err
	}
	sum, err := svc.GetWorkspaceSummary(ctx, board.WorkspaceInput{Workspace: slug})
	if err != nil {
		return "", err
	}
	recent, err := svc.RecentTickets(ctx, board.RecentTicketsInput{Workspace: slug, Since: since, Limit: promptTickets})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Write a short stand-up for the workspace %s (%s) from the board below: what changed since %s, what is being worked on, and what waits for a person. Name tickets by id. Change nothing on the board unless asked.\n\n",
		sum.Workspace.Name, slug, stamp(since))
	fmt.Fprintf(&b, "## Changed since %s\n\n", stamp(since))
	if len(recent.Tickets) == 0 {
		b.WriteString("(nothing)\n")
	}
	for _, r := range recent.Tickets {
		fmt.Fprintf(&b, "- %s\n  last: %s %s; %d change(s) in the period\n", ticketLine(r.Ticket), stamp(r.LastChange.At), eventLine(r.LastChange), r.Changes)
	}
	if len(recent.Tickets) == promptTickets || recent.Partial {
		fmt.Fprintf(&b, "\n*[More may have changed than is listed: call get_workspace_summary or list_ticket_history for the rest.]*\n")
	}
	b.WriteString("\n")
	for _, st := range []board.Status{board.StatusDoing, board.StatusWaitingHuman} {
		if err := ticketSection(ctx, &b, svc, slug, st, false); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// ticketSection lists a status's newest tickets under a heading; for
// triage, unowned ones first and with an excerpt of their description.
func ticketSection(ctx context.Context, b *strings.Builder, svc *board.Service, slug string, st board.Status, triage bool) error {
	page, err := svc.ListTickets(ctx, board.ListTicketsInput{Workspace: slug, Status: st, Limit: promptTickets})
	if err != nil {
		return err
	}
	total := len(page.Tickets)
	if page.Total != nil {
		total = *page.Total
	}
	fmt.Fprintf(b, "## %s (%d)\n\n", st, total)
	tickets := page.Tickets
	if triage {
		sort.SliceStable(tickets, func(i, j int) bool { return unowned(tickets[i]) && !unowned(tickets[j]) })
	}
	if len(tickets) == 0 {
		b.WriteString("(none)\n")
	}
	for _, t := range tickets {
		fmt.Fprintf(b, "- %s\n", ticketLine(t))
		if triage && t.Body != "" {
			excerpt, cut := clipChars(oneLine(t.Body), excerptChars)
			if cut {
				excerpt += " …"
			}
			fmt.Fprintf(b, "  %s\n", excerpt)
		}
	}
	if page.NextCursor != nil {
		fmt.Fprintf(b, "\n*[%d shown of %d: call list_tickets with workspace %q, status %q and cursor %q for the next page.]*\n",
			len(tickets), total, slug, st, *page.NextCursor)
	}
	b.WriteString("\n")
	return nil
}

func unowned(t board.Ticket) bool { return t.Owner == nil || *t.Owner == "" }
