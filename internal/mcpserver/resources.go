package mcpserver

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Resources are what a person attaches to a conversation (Claude Code's @
// mentions): a ticket or a workspace's summary as Markdown, read through the
// same use cases and policy as the tools. A ticket or workspace hidden from
// the caller answers exactly as an absent one.

const (
	ticketScheme    = "ticket://"
	workspaceScheme = "workspace://"
	markdownMIME    = "text/markdown"
)

func registerResources(s *mcp.Server, svc *board.Service, who PrincipalFunc) {
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: ticketScheme + "{id}",
		Name:        "ticket",
		Title:       "Ticket",
		Description: "One ticket as Markdown: its fields, description, newest notes and history, e.g. ticket://inbox-21. Long descriptions and notes are cut, saying which tool reads them whole (get_ticket, list_ticket_notes, list_ticket_history).",
		MIMEType:    markdownMIME,
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		ctx = board.WithPrincipal(ctx, who(ctx, req.Extra))
		text, err := gatedText(ctx, func() (string, error) {
			d, err := svc.GetTicket(ctx, board.TicketIDInput{ID: strings.TrimPrefix(uri, ticketScheme)})
			board.Observe(ctx, d, err)
			if err != nil {
				return "", rpcError(err, uri)
			}
			return ticketMarkdown(d), nil
		})
		if err != nil {
			return nil, err
		}
		return markdownResource(uri, text), nil
	})

	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: workspaceScheme + "{slug}",
		Name:        "workspace",
		Title:       "Workspace summary",
		Description: "A workspace's summary as Markdown: its AI policy, tickets per status, tickets waiting for AI, tickets due within 7 days and recent events, e.g. workspace://inbox.",
		MIMEType:    markdownMIME,
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		ctx = board.WithPrincipal(ctx, who(ctx, req.Extra))
		text, err := gatedText(ctx, func() (string, error) {
			sum, err := svc.GetWorkspaceSummary(ctx, board.WorkspaceInput{Workspace: strings.TrimPrefix(uri, workspaceScheme)})
			board.Observe(ctx, sum, err)
			if err != nil {
				return "", rpcError(err, uri)
			}
			return workspaceMarkdown(sum), nil
		})
		if err != nil {
			return nil, err
		}
		return markdownResource(uri, text), nil
	})
}

// gatedText runs a read that renders text under the answer gate
// (answergate.go), as the read tools do: it takes the most an answer may be
// before reading the store, and keeps what the text costs as a JSON string
// (at most twice its length) until the response is written.
func gatedText(ctx context.Context, read func() (string, error)) (string, error) {
	if err := holdAnswer(ctx, board.MaxAnswerBytes); err != nil {
		return "", err // the caller gave up while waiting for room
	}
	text, err := read()
	settleAnswer(ctx, int64(2*len(text)))
	return text, err
}

// markdownResource is a read's answer. Its cache scope is private: what a
// resource shows depends on who reads it (the AI policy).
func markdownResource(uri, text string) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{
		Cacheable: mcp.Cacheable{CacheScope: "private"},
		Contents:  []*mcp.ResourceContents{{URI: uri, MIMEType: markdownMIME, Text: text}},
	}
}
