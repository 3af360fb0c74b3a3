package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/obs"
)

// writeNote is appended to every write tool's description: it is how a model
// learns the retry discipline the ledger relies on.
const writeNote = ` Exactly once: pass a new request_id for each new intent. After an error or lost connection, call find_request with that request_id first; to retry, reuse the same request_id with the same arguments, and the first result comes back with replayed: true instead of a second write.`

func boolPtr(b bool) *bool { return &b }

func readOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, OpenWorldHint: boolPtr(false)}
}

// idempotentWrite: retrying with the same request_id has no further effect,
// and writes only add or change, never delete.
func idempotentWrite(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, IdempotentHint: true, DestructiveHint: boolPtr(false), OpenWorldHint: boolPtr(false)}
}

func registerTools(s *mcp.Server, svc *board.Service, who PrincipalFunc) {
	add(s, who, &mcp.Tool{
		Name:        "list_workspaces",
		Description: "List the workspaces you can see, with ticket counts per status. Start here to learn valid workspace slugs and which ones are read-only for AI.",
		Annotations: readOnly("List workspaces"),
	}, func(ctx context.Context, _ struct{}) (board.WorkspacesResult, error) { return svc.ListWorkspaces(ctx) })

	add(s, who, &mcp.Tool{
		Name:        "get_workspace_summary",
		Description: "Overview of one workspace: counts per status, tickets waiting for AI, tickets due within 7 days (overdue included), and recent events. Read this before writing in a workspace.",
		Annotations: readOnly("Workspace summary"),
	}, svc.GetWorkspaceSummary)

	add(s, who, &mcp.Tool{
		Name:        "list_tickets",
		Description: fmt.Sprintf("List tickets of a workspace, newest first, filtered by status, owner, tag or query. query is words, all required, each found case-insensitively as a whole word of the title, body or tags; its last word without a space after it is also a prefix (\"deplo\" finds deploy, deployment). With a query, tickets whose title holds every word come first, then the rest, newest first in each. Pages with limit (1-%d, default %d) and cursor: pass next_cursor back to get the next page; null means the last page. A page can hold fewer tickets than limit and still have a next_cursor (partial: true) when a search reached the most one call may read, or the answer its size bound: keep calling with next_cursor until it is null.", board.MaxLimit, board.DefaultLimit),
		Annotations: readOnly("List tickets"),
	}, svc.ListTickets)

	add(s, who, &mcp.Tool{
		Name:        "get_ticket",
		Description: "Read one ticket by id (e.g. inbox-21) with its newest notes and history events (up to 20 of each, oldest first). When older ones exist, notes_cursor and history_cursor are set: pass them to list_ticket_notes and list_ticket_history.",
		Annotations: readOnly("Get ticket"),
	}, svc.GetTicket)

	add(s, who, &mcp.Tool{
		Name:        "list_ticket_notes",
		Description: "Page back through a ticket's notes: without cursor the newest page, with notes_cursor from get_ticket or next_cursor from this tool the page before it. Each page is oldest first; next_cursor null means the first note is reached.",
		Annotations: readOnly("List ticket notes"),
	}, svc.ListTicketNotes)

	add(s, who, &mcp.Tool{
		Name:        "list_ticket_history",
		Description: "Page back through a ticket's history events (created, updated, moved, notes added): without cursor the newest page, with history_cursor from get_ticket or next_cursor from this tool the page before it. Each page is oldest first; next_cursor null means the ticket's creation is reached.",
		Annotations: readOnly("List ticket history"),
	}, svc.ListTicketHistory)

	add(s, who, &mcp.Tool{
		Name:        "list_activity",
		Description: fmt.Sprintf("What changed on the board, newest first: a workspace's events (tickets created, updated, moved, notes added, workspace changes), or every workspace's you may see when workspace is omitted. Use it to ask \"what changed since I last looked\": pass since (RFC 3339) and you get only later events; save latest from the first page and pass it as since next time. Filter by author (by) or kind. Pages with limit (1-%d, default %d) and cursor: pass next_cursor back for older events; null means the last page. A page can hold fewer events than limit and still have a next_cursor (partial: true) when a filter reached the most one call may examine: keep calling until it is null.", board.MaxLimit, board.DefaultLimit),
		Annotations: readOnly("List activity"),
	}, svc.ListActivity)

	add(s, who, &mcp.Tool{
		Name:        "find_request",
		Description: "Find out what became of an earlier write of yours by its request_id: done (with the stored result), running, abandoned (stopped before finishing) or unknown (never arrived, or older than the retention window). Call this after an error or lost connection before retrying.",
		Annotations: readOnly("Find request"),
	}, svc.FindRequest)

	add(s, who, &mcp.Tool{
		Name:        "create_ticket",
		Description: fmt.Sprintf("Create a ticket in a workspace. It starts in status candidate; created_by is you, decided by the server. Search first (list_tickets with query) so as not to file a duplicate. The answer's similar lists up to %d open tickets of the workspace whose titles share most words with the new one: if one is the same matter, add a note there (the new ticket is created either way).", board.MaxSimilar) + writeNote,
		Annotations: idempotentWrite("Create ticket"),
	}, svc.CreateTicketFindingSimilar)

	add(s, who, &mcp.Tool{
		Name:        "update_ticket",
		Description: "Change a ticket's title, body, priority, owner, due date, tags or links. Only the fields you pass change; tags and links are replaced whole; null clears owner, due, body, tags or links (title and priority cannot be null). Status is not changed here: use move_ticket." + writeNote,
		Annotations: idempotentWrite("Update ticket"),
	}, svc.UpdateTicket)

	add(s, who, &mcp.Tool{
		Name:        "move_ticket",
		Description: "Move a ticket to another status (candidate, doing, waiting_human, waiting_ai, done, hold), with an optional reason kept in the history. Moving to done sets completed_at; moving out of done clears it." + writeNote,
		Annotations: idempotentWrite("Move ticket"),
	}, svc.MoveTicket)

	add(s, who, &mcp.Tool{
		Name:        "add_note",
		Description: "Add a Markdown note to a ticket, e.g. progress, findings or a question for a person." + writeNote,
		Annotations: idempotentWrite("Add note"),
	}, svc.AddNote)

	registerTaskTools(s, svc, who)
}

// add registers a use case as a typed tool: its input and output schemas are
// inferred from In and Out, the principal comes from the transport, and
// errors come back as tool errors (isError) with the domain's message, which
// says what to do next.
//
// It goes through the SDK's raw AddTool rather than the typed one because
// the typed one resolves every input and output schema when the server is
// built, which was most of a Lambda cold start. Here the input schema is
// resolved on the tool's first call, and outputs are not re-validated on
// every call: they are Go values of the type the schema was inferred from,
// and TestOutputsMatchTheirSchemas checks real outputs against it.
//
// The input schema is handed to the SDK already encoded: on 2026-07-28 the
// SDK looks for x-mcp-header annotations in it on every tools/call by
// encoding and decoding it again, and encoding a *jsonschema.Schema (by
// reflection) was the largest single cost of a create_ticket call (about
// 15% of the server's CPU); encoded JSON only has to be parsed.
func add[In, Out any](s *mcp.Server, who PrincipalFunc, t *mcp.Tool, use func(context.Context, In) (Out, error)) {
	inSchema, outSchema := mustSchemas[In, Out]()
	inJSON, err := json.Marshal(inSchema)
	if err != nil {
		panic(fmt.Errorf("input schema of %s: %w", t.Name, err)) // a programming error
	}
	t.InputSchema, t.OutputSchema = json.RawMessage(inJSON), outSchema
	resolve := sync.OnceValues(func() (*jsonschema.Resolved, error) { return inSchema.Resolve(nil) })
	s.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		obs.SetTool(ctx, t.Name)
		resolved, err := resolve()
		if err != nil {
			return nil, fmt.Errorf("input schema of %s: %w", t.Name, err) // a programming error
		}
		input, err := decodeArguments[In](req.Params.Arguments, resolved)
		if err != nil {
			return toolError(err), nil
		}
		read := t.Annotations != nil && t.Annotations.ReadOnlyHint
		if read {
			if err := holdAnswer(ctx, board.MaxAnswerBytes); err != nil {
				return nil, err // the caller gave up while waiting for room
			}
		}
		output, err := use(board.WithPrincipal(ctx, who(ctx, req.Extra)), input)
		board.Observe(ctx, output, err) // the request's log line and metrics
		if err != nil {
			return toolError(err), nil
		}
		text, err := boundedJSON(&output)
		if err != nil {
			return nil, fmt.Errorf("encoding the result of %s: %w", t.Name, err)
		}
		if read {
			settleAnswer(ctx, int64(answerCost(text)))
		} else if err := holdAnswer(ctx, int64(answerCost(text))); err != nil {
			return nil, err // the caller gave up while waiting for room
		}
		return &mcp.CallToolResult{
			// The SDK encodes the value itself into the response: the
			// same JSON as text, with no third copy held meanwhile.
			StructuredContent: &output,
			// Clients without structured content read the same JSON as
			// text; boundedJSON counted both copies.
			Content: []mcp.Content{&mcp.TextContent{Text: text}},
		}, nil
	})
}

// decodeArguments checks the arguments against the input schema (types,
// enums, required and unknown fields), then decodes them.
func decodeArguments[In any](raw json.RawMessage, schema *jsonschema.Resolved) (In, error) {
	var in In
	args := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return in, fmt.Errorf("arguments must be a JSON object: %v", err)
		}
	}
	if err := schema.Validate(args); err != nil {
		hint := "fix them to match the tool's inputSchema (tools/list) and call again"
		if _, ok := args["author"]; ok {
			hint = "the author is decided by the server from your credential: leave author out"
		} else if _, ok := args["created_by"]; ok {
			hint = "created_by is decided by the server from your credential: leave it out"
		}
		return in, fmt.Errorf("invalid arguments (%v); nothing was written: %s", strings.TrimPrefix(err.Error(), "validating root: "), hint)
	}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &in); err != nil {
			return in, fmt.Errorf("invalid arguments: %v", err)
		}
	}
	return in, nil
}

func toolError(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
}
