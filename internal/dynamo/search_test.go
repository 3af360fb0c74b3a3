package dynamo_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
)

// TestSearchBudget holds a word search to its cost at a board of a few
// hundred tickets (docs/dynamodb.md, "Search"): one whole word costs at
// most 3 requests with the policy not cached (2 cached), and reads at most
// 2 × returned + 3 items, whatever the board holds (two characters of
// Japanese too: one pair); a prefix with few matches costs the same
// requests and reads its matches' index items.
func TestSearchBudget(t *testing.T) {
	for _, e := range endpoints() {
		t.Run(e.name, func(t *testing.T) {
			ep := e.newEndpoint(t)
			table := tableName()
			loader := openStore(t, ep, nil, dynamo.Config{Table: table})
			const size = 300
			var tickets []board.TransferredItem
			now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
			for n := int64(1); n <= size; n++ {
				title, body := fmt.Sprintf("Routine ticket %d about the printer", n), "common words in every body, printer toner paper。ブログ記事の下書きを確認する"
				switch {
				case n%100 == 7: // 7, 107, 207: in the title
					title += " zebra LEDの点滅"
				case n%100 == 50: // 50, 150, 250: in the body
					body += " zebra crossing 点滅"
				}
				id := fmt.Sprintf("inbox-%d", n)
				tickets = append(tickets, board.TransferredItem{Ticket: &board.Ticket{ID: id, Workspace: "inbox", Number: n, Title: title, Body: body,
					Status: board.StatusCandidate, Priority: board.PriorityNormal, Tags: []string{}, Links: []board.Link{},
					CreatedBy: "ai:test", CreatedAt: now, UpdatedAt: now, Version: 1}})
			}
			// As a board file import puts them: about 100 per transaction,
			// then their word items.
			if _, err := loader.PutBatch(context.Background(), tickets, now, true); err != nil {
				t.Fatal(err)
			}
			ctx := aiCtx(t)
			// Without a cached policy the list reads the workspace with
			// its count shards (the batch put's one here) for the policy and
			// the counts: one item per shard more.
			const shards = 1
			for _, c := range []struct {
				name     string
				ttl      time.Duration
				query    string
				limit    int
				want     []string
				requests int
				items    int // at most
			}{
				{"one word, policy cached", 0, "zebra ", 20, ids(207, 107, 7, 250, 150, 50), 2, 2*6 + 2},
				{"one word, policy not cached", -1, "zebra ", 20, ids(207, 107, 7, 250, 150, 50), 3, 2*6 + 3 + shards},
				{"one word, a full page of many matches", -1, "printer ", 5, ids(300, 299, 298, 297, 296), 3, 2*5 + 3 + shards},
				{"a prefix with few matches", -1, "zeb", 20, ids(207, 107, 7, 250, 150, 50), 3, 2*6 + 3 + shards},
				{"two words", -1, "zebra crossing ", 20, ids(250, 150, 50), 4, 4*3 + 3 + shards},
				// Two characters of Japanese are one pair, one whole word.
				{"two characters", 0, "点滅", 20, ids(207, 107, 7, 250, 150, 50), 2, 2*6 + 2},
				{"two characters, a full page of many matches", -1, "記事", 5, ids(300, 299, 298, 297, 296), 3, 2*5 + 3 + shards},
				// Three are two pairs, several words: each pair's first page
				// is probed, then the rarer one's tiers are walked.
				{"three characters: two pairs", -1, "下書き", 5, ids(300, 299, 298, 297, 296), 6, 4*(5+1) + 1 + shards},
			} {
				counter := &dynamo.RequestCounter{}
				svc := newService(t, openStore(t, ep, counter, dynamo.Config{Table: table, PolicyTTL: c.ttl}))
				// Warm the policy cache (when it keeps policies) and the
				// key that seals cursors, read once per process.
				if _, err := svc.ListTickets(ctx, board.ListTicketsInput{Workspace: "inbox", Limit: 1}); err != nil {
					t.Fatal(err)
				}
				counter.Reset()
				list, err := svc.ListTickets(ctx, board.ListTicketsInput{Workspace: "inbox", Query: c.query, Limit: c.limit})
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				got := make([]string, len(list.Tickets))
				for i, tk := range list.Tickets {
					got[i] = tk.ID
				}
				if fmt.Sprint(got) != fmt.Sprint(c.want) || list.Partial {
					t.Errorf("%s: %v partial=%v, want %v, not partial", c.name, got, list.Partial, c.want)
				}
				t.Logf("%s: %d requests (%s), %d items read, %d returned", c.name, counter.Total(), counter.Ops(), counter.ItemsRead(), len(got))
				if counter.Total() > c.requests || counter.ItemsRead() > c.items {
					t.Errorf("%s: %d requests (%s) and %d items read; budget %d requests, %d items",
						c.name, counter.Total(), counter.Ops(), counter.ItemsRead(), c.requests, c.items)
				}
			}
		})
	}
}

func ids(numbers ...int) []string {
	out := make([]string, len(numbers))
	for i, n := range numbers {
		out[i] = fmt.Sprintf("inbox-%d", n)
	}
	return out
}
