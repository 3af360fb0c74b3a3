package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The SDK lists only resources registered up front, the same for every
// caller. Which tickets a caller may attach depends on who it is and on
// what changed last, so resources/list is answered per call here: the
// recently changed tickets the caller may see (board.RecentTickets, newest
// first) and its workspaces, ahead of whatever is registered statically
// (nothing in the product; the conformance server's fixtures). Later pages
// (a cursor) are the SDK's own. resources/read stays on the templates
// (resources.go), which serve any ticket, listed or not.

// resourceEntryBytes is about what one listed resource costs in the
// answer: a title of up to 200 characters, a URI and a description.
const resourceEntryBytes = 1 << 10

func listRecentResources(s *mcp.Server, svc *board.Service, who PrincipalFunc) {
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "resources/list" {
				return next(ctx, method, req)
			}
			res, err := next(ctx, method, req)
			list, ok := res.(*mcp.ListResourcesResult)
			if err != nil || !ok {
				return res, err
			}
			if p, _ := req.GetParams().(*mcp.ListResourcesParams); p != nil && p.Cursor != "" {
				return res, nil
			}
			ctx = board.WithPrincipal(ctx, who(ctx, req.GetExtra()))
			// The tickets are read whole (their descriptions too), so the
			// read waits its turn at the answer gate as the read tools do.
			if err := holdAnswer(ctx, board.MaxAnswerBytes); err != nil {
				return nil, err
			}
			mine, err := boardResources(ctx, svc)
			settleAnswer(ctx, int64(len(mine))*resourceEntryBytes)
			board.Observe(ctx, mine, err)
			if err != nil {
				return nil, rpcError(err, "")
			}
			out := *list
			out.Resources = append(mine, list.Resources...)
			// Per caller: no shared cache may keep it, and no client for long.
			out.Cacheable = mcp.Cacheable{CacheScope: "private"}
			return &out, nil
		}
	})
}

// boardResources are the caller's recently changed tickets, newest first,
// then its workspaces.
func boardResources(ctx context.Context, svc *board.Service) ([]*mcp.Resource, error) {
	recent, err := svc.RecentTickets(ctx, board.RecentTicketsInput{})
	if err != nil {
		return nil, err
	}
	workspaces, err := svc.ListWorkspaces(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*mcp.Resource, 0, len(recent.Tickets)+len(workspaces.Workspaces))
	for _, r := range recent.Tickets {
		t := r.Ticket
		out = append(out, &mcp.Resource{
			URI:         ticketScheme + t.ID,
			Name:        t.ID,
			Title:       t.ID + ": " + t.Title,
			Description: fmt.Sprintf("%s ticket in %s, priority %s, changed %s by %s", t.Status, t.Workspace, t.Priority, stamp(r.LastChange.At), r.LastChange.Author),
			MIMEType:    markdownMIME,
		})
	}
	for _, w := range workspaces.Workspaces {
		out = append(out, &mcp.Resource{
			URI:         workspaceScheme + w.Slug,
			Name:        w.Slug,
			Title:       w.Name + " (workspace summary)",
			Description: fmt.Sprintf("Summary of workspace %s: tickets per status, waiting for AI, due soon, recent events; AI policy %s", w.Slug, w.AIPolicy),
			MIMEType:    markdownMIME,
		})
	}
	return out, nil
}
