package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// ListTickets at scale: pages bounded in text (MaxBytes) and in what a call
// may examine (MaxScan), and the indexes behind each filter kept in step
// with every write.

func boundedListTests() []contractTest {
	return []contractTest{
		{"a page stops at MaxBytes of text, keeps at least one ticket, and continues", testListMaxBytes},
		{"with any MaxScan, pages return every match exactly once, newest first", testListMaxScan},
		{"tag and owner filters follow updates", testListIndexesFollow},
	}
}

func testListMaxBytes(t *testing.T, f *fixture) {
	body := strings.Repeat("y", 1000)
	for i := range 5 {
		f.create("inbox", "c"+itoa(i), withTitle("t"), withBody(body)) // 1001 bytes of text each
	}
	page := f.list(board.TicketQuery{Workspace: "inbox", Limit: 10, MaxBytes: 2500})
	if got, want := ticketIDs(page.Tickets), ids("inbox", 5, 4); !slices.Equal(got, want) || !page.More || !page.Partial {
		t.Fatalf("MaxBytes 2500 over 1001-byte tickets: %v More=%v Partial=%v; want %v, More and Partial", got, page.More, page.Partial, want)
	}
	page = f.list(board.TicketQuery{Workspace: "inbox", Limit: 10, MaxBytes: 2500, Before: page.ContinueBelow()})
	if got, want := ticketIDs(page.Tickets), ids("inbox", 3, 2); !slices.Equal(got, want) || !page.More {
		t.Errorf("second page: %v More=%v; want %v, More", got, page.More, want)
	}
	page = f.list(board.TicketQuery{Workspace: "inbox", Limit: 10, MaxBytes: 10})
	if got, want := ticketIDs(page.Tickets), ids("inbox", 5); !slices.Equal(got, want) || !page.More {
		t.Errorf("MaxBytes below one ticket: %v More=%v; want %v (one ticket always), More", got, page.More, want)
	}
	page = f.list(board.TicketQuery{Workspace: "inbox", Limit: 2, MaxBytes: 1 << 20})
	if got, want := ticketIDs(page.Tickets), ids("inbox", 5, 4); !slices.Equal(got, want) || !page.More || page.Partial {
		t.Errorf("limit 2 well under MaxBytes: %v More=%v Partial=%v; want %v, More, not partial", got, page.More, page.Partial, want)
	}
}

// scanCase is one filter of the MaxScan test.
type scanCase struct {
	name string
	q    board.TicketQuery
}

func testListMaxScan(t *testing.T, f *fixture) {
	// 40 tickets: every 3rd tagged "three", every 4th owned by ai:four,
	// every 5th waiting for AI; "needle" in the title of 7, 19, 26, 38 and
	// in the body of 12; "zq…" in the body of 9 and 33.
	type made struct {
		n     int
		tags  []string
		owner string
		st    board.Status
		words board.TicketWords
	}
	var all []made
	for n := 1; n <= 40; n++ {
		m := made{n: n, st: board.StatusCandidate}
		var opts []ticketOpt
		if n%3 == 0 {
			m.tags = []string{"three"}
			opts = append(opts, withTags("three"))
		}
		if n%4 == 0 {
			m.owner = "ai:four"
			opts = append(opts, withOwner("ai:four"))
		}
		if n%5 == 0 {
			m.st = board.StatusWaitingAI
			opts = append(opts, withStatus(board.StatusWaitingAI))
		}
		title, body := fmt.Sprintf("ticket %d", n), "plain"
		switch n {
		case 7, 19, 26, 38:
			title += " with a Needle"
		case 12:
			body = "the NEEDLE is in the body"
		case 9, 33:
			body = "has zQuux inside"
		case 14, 36:
			body = "下書きを見る"
		case 8, 21:
			body = "下書を見て書き直す" // 下書 and 書き apart: no match
		}
		if n%12 == 5 { // 5, 17, 29
			title += " 下書き"
		}
		m.words = board.IndexWords(board.Ticket{Title: title, Body: body, Tags: m.tags})
		all = append(all, m)
		f.create("inbox", "c"+itoa(n), append(opts, withTitle(title), withBody(body))...)
	}
	// What a store must answer: every match, search tier by tier (title
	// matches first), newest first in each.
	matches := func(q board.TicketQuery) []string {
		var tiers [board.SearchTiers][]string
		for i := len(all) - 1; i >= 0; i-- {
			m := all[i]
			if (q.Tag != "" && !slices.Contains(m.tags, q.Tag)) || (q.Owner != "" && m.owner != q.Owner) ||
				(q.Status != "" && m.st != q.Status) {
				continue
			}
			tier := 0
			if q.Query != "" {
				s, err := board.ParseSearch(q.Query)
				if err != nil {
					t.Fatal(err)
				}
				var ok bool
				if tier, ok = s.Tier(m.words); !ok {
					continue
				}
			}
			tiers[tier] = append(tiers[tier], "inbox-"+itoa(m.n))
		}
		return slices.Concat(tiers[:]...)
	}
	cases := []scanCase{
		{"query", board.TicketQuery{Query: "needle"}},
		{"prefix", board.TicketQuery{Query: "zq"}},
		{"tag", board.TicketQuery{Tag: "three"}},
		{"tag and status", board.TicketQuery{Tag: "three", Status: board.StatusWaitingAI}},
		{"owner and query", board.TicketQuery{Owner: "ai:four", Query: "needle"}},
		{"status and prefix", board.TicketQuery{Status: board.StatusCandidate, Query: "zq"}},
		{"query across tiers", board.TicketQuery{Query: "needle "}},
		{"tag and query", board.TicketQuery{Tag: "three", Query: "ticket 3"}},
		{"owner and status", board.TicketQuery{Owner: "ai:four", Status: board.StatusWaitingAI}},
		{"status", board.TicketQuery{Status: board.StatusWaitingAI}},
		{"a run of three characters", board.TicketQuery{Query: "下書き"}},
		{"a run and status", board.TicketQuery{Status: board.StatusCandidate, Query: "下書き"}},
	}
	for _, c := range cases {
		for _, scan := range []int{1, 6, 1000} {
			for _, limit := range []int{1, 4} {
				q := c.q
				q.Workspace, q.Limit, q.MaxScan = "inbox", limit, scan
				var got []string
				for calls := 0; ; calls++ {
					if calls > 100 {
						t.Fatalf("%s (MaxScan %d, limit %d): paging never ends; got %v so far", c.name, scan, limit, got)
					}
					page := f.list(q)
					if len(page.Tickets) > limit {
						t.Fatalf("%s: page of %d tickets, limit %d", c.name, len(page.Tickets), limit)
					}
					if page.More && len(page.Tickets) < limit && !page.Partial {
						t.Errorf("%s (MaxScan %d, limit %d): a page of %d with More is not marked Partial", c.name, scan, limit, len(page.Tickets))
					}
					got = append(got, ticketIDs(page.Tickets)...)
					next := page.ContinueBelow()
					if next == 0 {
						break
					}
					if page.NextTier < q.Tier || page.NextTier == q.Tier && q.Before != 0 && next >= q.Before {
						t.Fatalf("%s: the page continues at tier %d below %d after starting at tier %d below %d: no progress",
							c.name, page.NextTier, next, q.Tier, q.Before)
					}
					q.Before, q.Tier = next, page.NextTier
				}
				if want := matches(c.q); !slices.Equal(got, want) {
					t.Errorf("%s (MaxScan %d, limit %d): paged through %v, want %v", c.name, scan, limit, got, want)
				}
			}
		}
	}
}

func testListIndexesFollow(t *testing.T, f *fixture) {
	a := f.create("inbox", "a", withTags("x", "y"), withOwner("ai:one"))
	f.create("inbox", "b", withTags("y"), withOwner("ai:two"))
	up := f.updateTx(a.Ticket, alice, "retag", f.now(), []string{"tags", "owner"}, func(t *board.Ticket) {
		t.Tags = []string{"y", "z"}
		o := "ai:two"
		t.Owner = &o
	})
	f.save(up)
	q := func(tag, owner string) board.TicketQuery {
		return board.TicketQuery{Workspace: "inbox", Tag: tag, Owner: owner, Limit: 10}
	}
	f.checkPages([]pageCase{
		{q("x", ""), nil, false},
		{q("y", ""), ids("inbox", 2, 1), false},
		{q("z", ""), ids("inbox", 1), false},
		{q("", "ai:one"), nil, false},
		{q("", "ai:two"), ids("inbox", 2, 1), false},
		{q("z", "ai:two"), ids("inbox", 1), false},
	})
	// A move and a note leave the tag and owner indexes as they were.
	f.save(f.moveTx(*up.After, "move", board.StatusDoing, ""))
	f.checkPages([]pageCase{{q("z", "ai:two"), ids("inbox", 1), false}, {q("x", ""), nil, false}})
}
