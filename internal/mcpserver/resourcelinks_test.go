package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// list_tickets answers each listed ticket as a resource_link to its
// ticket:// resource, in the page's order, after the text; the structured
// content and the text stay the same JSON; a link reads as the ticket; a
// hidden workspace's tickets are never linked; other tools link nothing.
func TestListTicketsLinksEachTicket(t *testing.T) {
	onStoresAndRevisions(t, func(t *testing.T, e *env, cs *mcp.ClientSession) {
		seedPolicyTickets(t, e) // private-1 is hidden from agents
		s := seedAs(t, e, board.WithPrincipal(t.Context(), agent))
		for i := range 3 {
			s.create(board.CreateTicketInput{Workspace: "inbox", NewTicket: board.NewTicket{Title: fmt.Sprintf("linked %d", i+1)}})
		}
		res := callRaw(t, cs, "list_tickets", map[string]any{"workspace": "inbox", "limit": 2})
		if res.IsError {
			t.Fatalf("list_tickets: %s", errorText(res))
		}
		list := decode[board.TicketList](t, res)
		text, ok := res.Content[0].(*mcp.TextContent)
		if !ok {
			t.Fatalf("first content is %T, want the result's JSON as text", res.Content[0])
		}
		var fromText, fromStructured any
		structured, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(structured, &fromStructured)
		if err := json.Unmarshal([]byte(text.Text), &fromText); err != nil || !jsonEqual(fromText, fromStructured) {
			t.Errorf("text content is not the structured content's JSON (%v)", err)
		}
		var ids, uris []string
		for _, tk := range list.Tickets {
			ids = append(ids, tk.ID)
		}
		for _, c := range res.Content[1:] {
			link, ok := c.(*mcp.ResourceLink)
			if !ok {
				t.Fatalf("content after the text is %T, want resource_link", c)
			}
			if want := "ticket://" + link.Name; link.URI != want || link.MIMEType != "text/markdown" || link.Title == "" {
				t.Errorf("link %+v, want uri %s, a title and text/markdown", link, want)
			}
			uris = append(uris, link.URI)
		}
		want := []string{}
		for _, id := range ids {
			want = append(want, "ticket://"+id)
		}
		if len(ids) != 2 || !slices.Equal(uris, want) {
			t.Errorf("links %q for the page %q, want one per ticket in order", uris, ids)
		}
		// A link reads as the ticket it names.
		read, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uris[0]})
		if err != nil || len(read.Contents) != 1 || read.Contents[0].URI != uris[0] {
			t.Errorf("reading link %s: %v %+v", uris[0], err, read)
		}

		// A person would see private-1; an agent is refused the list, so
		// no link names it either.
		if res := callRaw(t, cs, "list_tickets", map[string]any{"workspace": "private"}); !res.IsError || len(res.Content) != 1 {
			t.Errorf("list_tickets of a hidden workspace: error %v with %d contents, want the not-found error alone", res.IsError, len(res.Content))
		}
		// A ticket is not a list: get_ticket answers its JSON alone.
		if res := callRaw(t, cs, "get_ticket", map[string]any{"id": ids[0]}); len(res.Content) != 1 {
			t.Errorf("get_ticket answers %d contents, want the text alone", len(res.Content))
		}
	})
}
