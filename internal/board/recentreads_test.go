package board_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

// feedCounter counts the store reads of events that RecentTickets makes.
type feedCounter struct {
	board.Store
	mu         sync.Mutex
	listEvents int
	feeds      []board.FeedQuery
}

func (c *feedCounter) ListEvents(ctx context.Context, ws string, limit int) ([]board.Event, error) {
	c.mu.Lock()
	c.listEvents++
	c.mu.Unlock()
	return c.Store.ListEvents(ctx, ws, limit)
}

func (c *feedCounter) ListActivity(ctx context.Context, q board.FeedQuery) (board.FeedPage, error) {
	c.mu.Lock()
	c.feeds = append(c.feeds, q)
	c.mu.Unlock()
	return c.Store.ListActivity(ctx, q)
}

// TestRecentTicketsReadsOnePage: the recently changed tickets (what
// resources/list offers) come from one page of the feed of every readable
// workspace, whatever the number of workspaces: one events read, bounded
// by the page, never one per workspace.
func TestRecentTicketsReadsOnePage(t *testing.T) {
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	counted := &feedCounter{Store: st}
	svc, err := board.NewService(board.Config{Store: counted, BaseURL: "http://x"})
	if err != nil {
		t.Fatal(err)
	}
	admin := board.WithPrincipal(t.Context(), board.Principal{Author: "human", Role: board.RoleAdmin, Source: board.SourceWeb})
	for w := range 20 {
		slug := fmt.Sprintf("w%d", w)
		if _, err := svc.CreateWorkspace(admin, board.CreateWorkspaceInput{RequestID: slug, Slug: slug, Name: "W"}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.CreateTicket(admin, board.CreateTicketInput{RequestID: slug + "-t", Workspace: slug, NewTicket: board.NewTicket{Title: "t"}}); err != nil {
			t.Fatal(err)
		}
	}
	agent := board.WithPrincipal(t.Context(), board.Principal{Author: "ai:test", Source: board.SourceMCP})
	recent, err := svc.RecentTickets(agent, board.RecentTicketsInput{})
	if err != nil || len(recent.Tickets) != 20 {
		t.Fatalf("recent tickets: %d, %v; want the 20 tickets", len(recent.Tickets), err)
	}
	if counted.listEvents != 0 || len(counted.feeds) != 1 || counted.feeds[0].Workspace != "" || counted.feeds[0].Limit > 4*board.MaxRecentTickets {
		t.Errorf("events read by %d ListEvents and feed pages %+v; want one page of the feed of every workspace, at most %d events",
			counted.listEvents, counted.feeds, 4*board.MaxRecentTickets)
	}
	if got := counted.feeds[0].Readable; len(got) == 0 {
		t.Errorf("an agent's page reads with Readable %v: hidden workspaces would be read", got)
	}
}
