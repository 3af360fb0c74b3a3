package mcpserver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

func getPrompt(cs *mcp.ClientSession, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callBound)
	defer cancel()
	return cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
}

// promptText gets a prompt that must succeed and returns its one message.
func promptText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]string) string {
	t.Helper()
	res, err := getPrompt(cs, name, args)
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
		t.Fatalf("%s: messages %+v, want one user message", name, res.Messages)
	}
	text, ok := res.Messages[0].Content.(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: content %T, want text", name, res.Messages[0].Content)
	}
	return text.Text
}

// before says whether a occurs in s, and before b.
func before(s, a, b string) bool {
	i, j := strings.Index(s, a), strings.Index(s, b)
	return i >= 0 && j >= 0 && i < j
}

// triage lists candidate and waiting_ai tickets, unowned first, with the
// instructions to set priority and owner and move them with request_ids;
// in a read-only workspace it asks for proposals instead of writes.
func TestPromptTriage(t *testing.T) {
	onStoresAndRevisions(t, func(t *testing.T, e *env, cs *mcp.ClientSession) {
		s := seedAs(t, e, board.WithPrincipal(t.Context(), agent))
		unownedOld := s.create(board.CreateTicketInput{Workspace: "inbox", NewTicket: board.NewTicket{Title: "Unowned old", Body: "Users cannot log in.\nSee the logs."}})
		owned := s.create(board.CreateTicketInput{Workspace: "inbox", NewTicket: board.NewTicket{Title: "Owned one", Owner: "human:alice"}})
		unownedNew := s.create(board.CreateTicketInput{Workspace: "inbox", NewTicket: board.NewTicket{Title: "Unowned new"}})
		waiting := s.create(board.CreateTicketInput{Workspace: "inbox", NewTicket: board.NewTicket{Title: "For the agent"}})
		s.move(waiting.ID, board.StatusWaitingAI, "")
		doing := s.create(board.CreateTicketInput{Workspace: "inbox", NewTicket: board.NewTicket{Title: "Being done"}})
		s.move(doing.ID, board.StatusDoing, "")

		text := promptText(t, cs, "triage", map[string]string{"workspace": "inbox"})
		for _, want := range []string{"## candidate (3)", "## waiting_ai (1)", "update_ticket", "move_ticket", "request_id", "find_request",
			unownedOld.ID + ": Unowned old [candidate, priority normal, owner none]", "Users cannot log in. See the logs.", waiting.ID + ": For the agent"} {
			if !strings.Contains(text, want) {
				t.Errorf("triage lacks %q", want)
			}
		}
		if strings.Contains(text, doing.ID+":") {
			t.Errorf("triage lists a ticket in doing")
		}
		if !before(text, unownedNew.ID+":", unownedOld.ID+":") || !before(text, unownedOld.ID+":", owned.ID+":") {
			t.Errorf("candidates not unowned first, newest first within:\n%s", text)
		}
		if t.Failed() {
			t.Logf("the prompt:\n%s", text)
		}

		seedPolicyTickets(t, e)
		ref := promptText(t, cs, "triage", map[string]string{"workspace": "reference"})
		if !strings.Contains(ref, "read-only for you") || strings.Contains(ref, "update_ticket") || !strings.Contains(ref, "Kept by people") {
			t.Errorf("triage of a read-only workspace:\n%s", ref)
		}
	})
}

// standup puts what changed since the given time, what is in doing and
// what waits for a person into the conversation.
func TestPromptStandup(t *testing.T) {
	onStoresAndRevisions(t, func(t *testing.T, e *env, cs *mcp.ClientSession) {
		s := seedAs(t, e, board.WithPrincipal(t.Context(), agent))
		working := s.create(board.CreateTicketInput{Workspace: "inbox", NewTicket: board.NewTicket{Title: "Working on it"}})
		s.move(working.ID, board.StatusDoing, "started")
		asks := s.create(board.CreateTicketInput{Workspace: "inbox", NewTicket: board.NewTicket{Title: "Needs a decision"}})
		s.move(asks.ID, board.StatusWaitingHuman, "which option?")
		idle := s.create(board.CreateTicketInput{Workspace: "inbox", NewTicket: board.NewTicket{Title: "Idle candidate"}})

		text := promptText(t, cs, "standup", map[string]string{"workspace": "inbox", "since": "1h"})
		for _, want := range []string{"## Changed since", "## doing (1)", "## waiting_human (1)",
			working.ID + ": Working on it [doing", asks.ID + ": Needs a decision [waiting_human", "moved candidate → waiting_human (which option?)", "2 change(s)"} {
			if !strings.Contains(text, want) {
				t.Errorf("standup lacks %q", want)
			}
		}
		changed := text[strings.Index(text, "## Changed since"):strings.Index(text, "## doing")]
		if !before(changed, idle.ID+":", asks.ID+":") || !before(changed, asks.ID+":", working.ID+":") {
			t.Errorf("changes not newest first:\n%s", changed)
		}
		if t.Failed() {
			t.Logf("the prompt:\n%s", text)
		}

		// Without since: the last 24 hours, the same changes.
		if text := promptText(t, cs, "standup", map[string]string{"workspace": "inbox"}); !strings.Contains(text, idle.ID+": Idle candidate") {
			t.Errorf("standup without since lacks today's change:\n%s", text)
		}
		// From the start of yesterday (UTC): the same changes.
		if text := promptText(t, cs, "standup", map[string]string{"workspace": "inbox", "since": "yesterday"}); !strings.Contains(text, working.ID+": Working on it") {
			t.Errorf("standup since yesterday lacks today's change:\n%s", text)
		}
	})
}

// Refusals are JSON-RPC errors that say what to do next; a hidden
// workspace answers as an unknown one and is never offered.
func TestPromptArgumentsRefused(t *testing.T) {
	onStoresAndRevisions(t, func(t *testing.T, e *env, cs *mcp.ClientSession) {
		seedPolicyTickets(t, e)
		for _, c := range []struct {
			name   string
			args   map[string]string
			wants  []string
			prompt string
		}{
			{"no workspace", nil, []string{"needs the workspace argument", "Workspaces you can use: inbox, reference"}, "triage"},
			{"blank workspace", map[string]string{"workspace": " "}, []string{"needs the workspace argument"}, "standup"},
			{"unknown workspace", map[string]string{"workspace": "nosuch"}, []string{"workspace 'nosuch' not found", "Workspaces you can use: inbox, reference"}, "triage"},
			{"hidden workspace", map[string]string{"workspace": "private"}, []string{"workspace 'private' not found", "Workspaces you can use: inbox, reference"}, "standup"},
			{"unknown argument", map[string]string{"workspace": "inbox", "status": "doing"}, []string{`no argument "status"`, "workspace"}, "triage"},
			{"since unreadable", map[string]string{"workspace": "inbox", "since": "last week"}, []string{`since "last week"`, "yesterday", "36h"}, "standup"},
			{"since in the future", map[string]string{"workspace": "inbox", "since": time.Now().UTC().AddDate(0, 0, 2).Format(time.DateOnly)}, []string{"is in the future"}, "standup"},
			{"malformed slug", map[string]string{"workspace": "Not A Slug"}, []string{"Not A Slug"}, "triage"},
		} {
			_, err := getPrompt(cs, c.prompt, c.args)
			if err == nil {
				t.Errorf("%s: %s succeeded", c.name, c.prompt)
				continue
			}
			e := rpcErr(t, c.name, err)
			if e.Code != -32602 {
				t.Errorf("%s: code %d, want -32602 (invalid params)", c.name, e.Code)
			}
			for _, want := range c.wants {
				if !strings.Contains(e.Message, want) {
					t.Errorf("%s: %q lacks %q", c.name, e.Message, want)
				}
			}
			if strings.Contains(e.Message, "private") && c.name != "hidden workspace" || strings.Contains(e.Message, "hidden") {
				t.Errorf("%s: %q gives the hidden workspace away", c.name, e.Message)
			}
		}
		_, errHidden := getPrompt(cs, "standup", map[string]string{"workspace": "private"})
		_, errAbsent := getPrompt(cs, "standup", map[string]string{"workspace": "nosuch"})
		if h, a := rpcErr(t, "hidden", errHidden), rpcErr(t, "absent", errAbsent); !sameShape(h.Message, "private", a.Message, "nosuch") {
			t.Errorf("hidden %q and absent %q answer differently", h.Message, a.Message)
		}
	})
}
