package mcpserver

import (
	"context"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// completion/complete offers values for what a person types into a client's
// resource or prompt picker: workspace slugs (workspace://{slug}, the
// prompts' workspace argument), ticket ids (ticket://{id}) and the standup's
// since. Values come from the same use cases and policy as the tools, so a
// hidden workspace and its tickets are never offered to AI, and each answer
// is bounded: a prefix match, at most maxCompletions values, from a bounded
// number of reads.

// maxCompletions is the most values one answer carries (the specification's
// limit).
const maxCompletions = 100

// completionBytes is about what an answer of maxCompletions ticket ids
// costs.
const completionBytes = maxCompletions * 64

// sinceValues are the standup's since forms that are words, offered as they
// are typed; dates and times are typed whole.
var sinceValues = []string{"today", "yesterday", "24h", "36h", "3d", "7d"}

// completer answers completion/complete for the product's templates and
// prompts; anything else goes to fallback (the conformance server's fixture
// prompts), or is refused saying what can be completed.
func completer(svc *board.Service, who PrincipalFunc, fallback func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error)) func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	return func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
		p := req.Params
		ref, arg := *p.Ref, p.Argument.Name
		var kind string
		switch {
		case ref.Type == "ref/resource" && ref.URI == ticketScheme+"{id}" && arg == "id":
			kind = "ticket"
		case ref.Type == "ref/resource" && ref.URI == workspaceScheme+"{slug}" && arg == "slug",
			ref.Type == "ref/prompt" && (ref.Name == "triage" || ref.Name == "standup") && arg == "workspace":
			kind = "workspace"
		case ref.Type == "ref/prompt" && ref.Name == "standup" && arg == "since":
			return completed(prefixed(sinceValues, p.Argument.Value), false), nil
		default:
			if fallback != nil {
				return fallback(ctx, req)
			}
			return nil, invalidParams("nothing to complete for %s %q argument %q: completion covers the ticket://{id} and workspace://{slug} templates and the triage and standup prompts' workspace (and standup's since)",
				ref.Type, ref.Name+ref.URI, arg)
		}
		ctx = board.WithPrincipal(ctx, who(ctx, req.Extra))
		var res *mcp.CompleteResult
		var err error
		if kind == "workspace" {
			res, err = completeWorkspaces(ctx, svc, p.Argument.Value)
		} else {
			res, err = completeTickets(ctx, svc, p.Argument.Value)
		}
		board.Observe(ctx, nil, err)
		if err != nil {
			return nil, rpcError(err, "")
		}
		return res, nil
	}
}

// completeWorkspaces offers the caller's workspaces whose slug starts with
// prefix, in slug order.
func completeWorkspaces(ctx context.Context, svc *board.Service, prefix string) (*mcp.CompleteResult, error) {
	ws, err := svc.ListWorkspaces(ctx)
	if err != nil {
		return nil, err
	}
	var slugs []string
	for _, w := range ws.Workspaces {
		slugs = append(slugs, w.Slug)
	}
	slices.Sort(slugs)
	return completed(prefixed(slugs, prefix), false), nil
}

// completeTickets offers ticket ids starting with prefix: the exact ticket
// when prefix is one the caller can read, the recently changed tickets
// (resources/list's), then the newest tickets of the workspace the prefix
// names ("inbox-2") or is the start of, when only one is. Older tickets of a
// large workspace are reached by typing their id whole. At most four reads:
// the workspaces, the ticket, the recent tickets, one page of the workspace.
func completeTickets(ctx context.Context, svc *board.Service, prefix string) (*mcp.CompleteResult, error) {
	ws, err := svc.ListWorkspaces(ctx)
	if err != nil {
		return nil, err
	}
	var named string
	var starts []string
	for _, w := range ws.Workspaces {
		if strings.HasPrefix(prefix, w.Slug+"-") && len(w.Slug) > len(named) {
			named = w.Slug // the longest: "my-app-3" names my-app, not my
		}
		if strings.HasPrefix(w.Slug+"-", prefix) {
			starts = append(starts, w.Slug)
		}
	}
	if named == "" && len(starts) == 1 {
		named = starts[0]
	}

	if err := holdAnswer(ctx, board.MaxAnswerBytes); err != nil {
		return nil, err // the caller gave up while waiting for room
	}
	// The tickets are read whole; the answer keeps only their ids.
	defer settleAnswer(ctx, completionBytes)

	var ids []string
	more := false
	if named != "" && strings.HasPrefix(prefix, named+"-") {
		if _, _, err := board.ParseTicketID(prefix); err == nil {
			if _, err := svc.GetTicket(ctx, board.TicketIDInput{ID: prefix}); err == nil {
				ids = append(ids, prefix)
			} else if board.ErrorCode(err) != board.CodeNotFound {
				return nil, err
			}
		}
	}
	recent, err := svc.RecentTickets(ctx, board.RecentTicketsInput{})
	if err != nil {
		return nil, err
	}
	for _, r := range recent.Tickets {
		ids = append(ids, r.Ticket.ID)
	}
	if named != "" {
		page, err := svc.ListTickets(ctx, board.ListTicketsInput{Workspace: named, Limit: board.MaxLimit})
		if err != nil && board.ErrorCode(err) != board.CodeNotFound {
			return nil, err // not found: hidden or removed since it was listed
		}
		for _, t := range page.Tickets {
			ids = append(ids, t.ID)
		}
		more = page.NextCursor != nil
	}
	var out []string
	seen := map[string]bool{}
	for _, id := range prefixed(ids, prefix) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return completed(out, more), nil
}

// prefixed keeps the values that start with prefix, in their order.
func prefixed(values []string, prefix string) []string {
	out := []string{}
	for _, v := range values {
		if strings.HasPrefix(v, prefix) {
			out = append(out, v)
		}
	}
	return out
}

// completed is an answer of at most maxCompletions values; hasMore when
// some were left out, or more may exist than were read. No values is an
// empty list, never null, which clients refuse as a malformed result.
func completed(values []string, more bool) *mcp.CompleteResult {
	if values == nil {
		values = []string{}
	}
	if len(values) > maxCompletions {
		values, more = values[:maxCompletions], true
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, HasMore: more}}
}
