package dynamo_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
)

// TestFeedOfEveryWorkspaceReadsAPage: the feed of every workspace reads
// about the page it answers plus a few items per workspace, not a page per
// workspace, so what reads one page of it (resources/list's recent tickets
// among them) costs what the page holds, however many workspaces there are.
func TestFeedOfEveryWorkspaceReadsAPage(t *testing.T) {
	const workspaces, perWorkspace, limit = 10, 12, 10
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			counter := &dynamo.RequestCounter{}
			s := openStore(t, ep.newEndpoint(t), counter, dynamo.Config{Table: tableName()})
			svc := newService(t, s)
			admin := board.WithPrincipal(context.Background(), board.Principal{Author: "human", Role: board.RoleAdmin, Source: board.SourceWeb})
			for w := range workspaces - 3 { // and the three every store starts with
				if _, err := svc.CreateWorkspace(admin, board.CreateWorkspaceInput{RequestID: fmt.Sprintf("w%d", w), Slug: fmt.Sprintf("w%d", w), Name: "W"}); err != nil {
					t.Fatal(err)
				}
			}
			all, err := s.ListWorkspaces(context.Background())
			if err != nil || len(all) != workspaces {
				t.Fatalf("%d workspaces, %v", len(all), err)
			}
			for i := range perWorkspace {
				for _, w := range all {
					if _, err := svc.CreateTicket(admin, board.CreateTicketInput{RequestID: fmt.Sprintf("%s-%d", w.Slug, i), Workspace: w.Slug, NewTicket: board.NewTicket{Title: "t"}}); err != nil {
						t.Fatal(err)
					}
				}
			}
			counter.Reset()
			page, err := s.ListActivity(context.Background(), board.FeedQuery{Limit: limit})
			if err != nil || len(page.Events) != limit || !page.More {
				t.Fatalf("a page of %d: %d events, more %v, %v", limit, len(page.Events), page.More, err)
			}
			// The page and one more, three events a workspace at most on a
			// first read, and the workspaces' own items with their count
			// shards (one each here: one instance wrote).
			const shards = 1
			bound := limit + 1 + 3*workspaces + workspaces*(1+shards) + 5
			t.Logf("%d requests (%s), %d items read for a page of %d over %d workspaces of %d events", counter.Total(), counter.Ops(), counter.ItemsRead(), limit, workspaces, perWorkspace+1)
			if counter.ItemsRead() > bound {
				t.Errorf("%d items read for a page of %d, want at most %d", counter.ItemsRead(), limit, bound)
			}
		})
	}
}
