package mcpserver

import (
	"context"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Name and Version identify the server to clients.
const (
	Name    = "ticket-ledger"
	Version = "0.1.0"
)

// Instructions tell a model how to use the board safely.
const Instructions = `ticket-ledger is a shared ticket board for people and AI agents.
Look first, then write: call list_workspaces, then get_workspace_summary or list_tickets, before creating or changing tickets.
Before creating a ticket, search for it: list_tickets with query set to a few words of its title finds every ticket with those words (title matches first); if one is the same matter, add a note to it instead. create_ticket answers similar: open tickets whose titles share most words with the new one; look at them, and if one is a duplicate, note that on both.
To learn what changed since you last looked, call list_activity with since set to the latest of your previous answer.
Every write tool takes a request_id: choose a new unique one (for example a UUID) for each new intent.
After an error, a timeout or a lost connection, do not invent a new request_id: call find_request with the old one to learn whether the write happened, and if you retry, reuse the same request_id with exactly the same arguments; the server then returns the first result (replayed: true) instead of writing twice.
Status changes go through move_ticket; update_ticket changes the other fields.
To take work, claim it so no other agent starts the same ticket: claim_next hands you the highest-priority ready ticket of a workspace with a claim (a lease, 15 minutes by default) and its token; do the work, passing claim_token to update_ticket and move_ticket; renew with claim_ticket and the token before claim.until if you need longer; add_note with what you did; then release_ticket with the token and a status (done, or waiting_human with a reason). A ticket another agent holds refuses your changes until its claim ends; notes stay open to everyone.
To write down a plan, relate tickets: relate_tickets kind blocks (this must be done first) or parent (sub-tickets). A ticket is ready when it is candidate or waiting_ai and every ticket that blocks it is done; claim_next hands out only ready tickets, and get_ticket shows blocked_by, blocks, parent and children.
Some workspaces are read-only for AI; their tickets can be read but not changed.
Resources: ticket://<id> (e.g. ticket://inbox-21) is a ticket as Markdown and workspace://<slug> a workspace's summary; resources/list offers the recently changed tickets. Prompts: triage and standup take a workspace.`

// PrincipalFunc decides who is calling from what the transport knows (a
// verified token, headers). It never looks at tool arguments.
type PrincipalFunc func(ctx context.Context, extra *mcp.RequestExtra) board.Principal

// StaticPrincipal always answers p: the local server's configured author.
func StaticPrincipal(p board.Principal) PrincipalFunc {
	return func(context.Context, *mcp.RequestExtra) board.Principal { return p }
}

// ContextPrincipal answers the principal that HTTP middleware (the auth
// resolver in front of /mcp) attached to the request's context, which the
// SDK passes on to tool handlers.
func ContextPrincipal() PrincipalFunc {
	return func(ctx context.Context, _ *mcp.RequestExtra) board.Principal { return board.PrincipalFrom(ctx) }
}

// Options configure the MCP server.
type Options struct {
	Principal PrincipalFunc
	Logger    *slog.Logger
	// ExtraTasks adds task-supporting tools of another backend to the
	// tasks extension: the conformance test server's fixtures
	// (test-tools/conformance/server), never the product's.
	ExtraTasks *TasksConfig
	// Completion answers completion/complete for what the product's own
	// completion (completion.go) does not cover: the conformance test
	// server's fixture prompts.
	Completion func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error)
}

// capabilities are what the server declares, in initialize and in
// server/discover alike, and exactly what it serves:
//   - tools without listChanged: the tool set is fixed at start, so there is
//     never a tools/list_changed to send (and a stateless JSON server has no
//     stream to send one on);
//   - prompts and resources without listChanged or subscribe: the prompts
//     and resource templates are fixed at start (prompts.go, resources.go);
//     resources/list is computed per call (resourcelist.go), and a stateless
//     server has no session to notify of its changes or to subscribe;
//   - logging, the SDK's default: logging/setLevel is served on 2025-11-25;
//   - completions: workspace slugs and ticket ids (completion.go).
func capabilities() *mcp.ServerCapabilities {
	return &mcp.ServerCapabilities{
		Logging:     &mcp.LoggingCapabilities{},
		Completions: &mcp.CompletionCapabilities{},
		Tools:       &mcp.ToolCapabilities{},
		Prompts:     &mcp.PromptCapabilities{},
		Resources:   &mcp.ResourceCapabilities{},
		// The tasks extension (tasksext.go): import_tickets may answer a
		// task to requests that opt in.
		Extensions: map[string]any{TasksExtension: map[string]any{}},
	}
}

// NewServer builds the MCP server with every tool, resource template and
// prompt registered.
func NewServer(svc *board.Service, opts Options) *mcp.Server {
	if opts.Principal == nil {
		opts.Principal = StaticPrincipal(board.Principal{Source: board.SourceMCP})
	}
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "Ticket Ledger", Version: Version}, &mcp.ServerOptions{
		Instructions:      Instructions,
		Logger:            opts.Logger,
		Capabilities:      capabilities(),
		CompletionHandler: completer(svc, opts.Principal, opts.Completion),
	})
	registerTools(s, svc, opts.Principal)
	registerResources(s, svc, opts.Principal)
	registerPrompts(s, svc, opts.Principal)
	installBoardTasks(s, svc, opts.Principal, opts.ExtraTasks)
	listRecentResources(s, svc, opts.Principal)
	noteMethods(s)
	return s
}
