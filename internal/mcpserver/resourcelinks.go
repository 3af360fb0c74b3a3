package mcpserver

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A list of tickets also answers each ticket as a resource_link content
// block to its ticket:// resource (resources.go), after the text: a client
// that attaches links lets a person open or attach a listed ticket without
// typing its id, and a model that follows them reads the ticket's Markdown.
// The structured content and its text copy stay exactly what they were, so
// nothing that reads the JSON changes.

// ticketLinks is a resource_link for every ticket of out, when out is a
// list of tickets (a tool's result, a pointer to it); nil for anything
// else.
func ticketLinks(out any) []mcp.Content {
	list, ok := out.(*board.TicketList)
	if !ok || list == nil {
		return nil
	}
	links := make([]mcp.Content, 0, len(list.Tickets))
	for _, t := range list.Tickets {
		links = append(links, &mcp.ResourceLink{
			URI:      ticketScheme + t.ID,
			Name:     t.ID,
			Title:    t.Title,
			MIMEType: markdownMIME,
		})
	}
	return links
}

// linksCost is what links add to an answer on the wire: each block once,
// in the content array.
func linksCost(links []mcp.Content) int {
	if len(links) == 0 {
		return 0
	}
	b, err := json.Marshal(links)
	if err != nil {
		return answerBound // cannot be sent: leaves no room, so none are sent
	}
	return len(b)
}
