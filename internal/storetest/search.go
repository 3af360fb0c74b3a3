package storetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Word search (board/search.go): the same query language and the same
// results on every store.

func searchTests() []contractTest {
	return []contractTest{
		{"a query is whole words; the last word without a space after it is a prefix", testSearchWords},
		{"words are case-folded the Unicode way", testSearchFolding},
		{"title matches first, then newest; a cursor pages across the tiers", testSearchRanking},
		{"edits of title, body and tags change what matches, at once", testSearchFollowsEdits},
		{"search combines with status, owner and tag", testSearchFilters},
		{"a hidden workspace never matches for AI", testSearchHidden},
		{"a query without words is refused", testSearchNoWords},
		{"Japanese, Chinese and Korean: any two or more adjacent characters of a run are found", testSearchCJK},
		{"a pair of characters is found in title-first, newest-first order, across pages", testSearchCJKRanking},
		{"the pairs of a long run in a body are indexed up to the bound of a ticket's words", testSearchCJKLongBody},
	}
}

func searchQ(s string) board.TicketQuery {
	return board.TicketQuery{Workspace: "inbox", Query: s, Limit: 10}
}

func testSearchWords(t *testing.T, f *fixture) {
	f.create("inbox", "c1", withTitle("Printer on floor 2"), withBody("The vendor called about the toner."))
	f.create("inbox", "c2", withTitle("snake_case names"), withBody("discount 50% off; see [x]"))
	f.create("inbox", "c3", withTitle("Quarterly report"), withTags("finance", "q3-report"))
	f.create("inbox", "c4", withTitle("Printers everywhere"), withBody("printing"))
	f.checkPages([]pageCase{
		{searchQ("vendor "), ids("inbox", 1), false},        // a whole word, in the body
		{searchQ("vend "), nil, false},                      // whole: not a prefix
		{searchQ("vend"), ids("inbox", 1), false},           // the last word is a prefix
		{searchQ("printer "), ids("inbox", 1), false},       // whole: not "printers"
		{searchQ("printer"), ids("inbox", 4, 1), false},     // prefix: printer, printers, printing
		{searchQ("print"), ids("inbox", 4, 1), false},       // both in the title, newest first
		{searchQ("printer vendor"), ids("inbox", 1), false}, // several words: all of them
		{searchQ("printer toner floor "), ids("inbox", 1), false},
		{searchQ("printer report"), nil, false},    // never one word from each ticket
		{searchQ("snake"), ids("inbox", 2), false}, // punctuation separates words
		{searchQ("case names"), ids("inbox", 2), false},
		{searchQ("50%"), ids("inbox", 2), false}, // % is no word and no wildcard
		{searchQ("[x]"), ids("inbox", 2), false},
		{searchQ("finance "), ids("inbox", 3), false}, // tags are words
		{searchQ("q3 report"), ids("inbox", 3), false},
		{searchQ("2"), ids("inbox", 1), false}, // one rune: a whole word
		{searchQ("p"), nil, false},             // not a prefix of one rune
		{searchQ("zzz"), nil, false},
		{board.TicketQuery{Workspace: "reference", Query: "printer", Limit: 10}, nil, false}, // other workspaces never
	})
}

func testSearchFolding(t *testing.T, f *fixture) {
	f.create("inbox", "c1", withTitle("Straße gesperrt"))
	f.create("inbox", "c2", withTitle("Visite"), withBody("à l'ÉCOLE demain"))
	f.create("inbox", "c3", withTitle("ΟΔΥΣΣΕΥΣ"), withBody("ﬁnal draft"))
	f.create("inbox", "c4", withTitle("Ärger mit dem Drucker"))
	f.checkPages([]pageCase{
		{searchQ("straße"), ids("inbox", 1), false},
		{searchQ("STRASSE "), ids("inbox", 1), false}, // ß folds to ss
		{searchQ("strasse gesp"), ids("inbox", 1), false},
		{searchQ("école"), ids("inbox", 2), false},
		{searchQ("ÉCOLE "), ids("inbox", 2), false},
		{searchQ("ecole"), nil, false},                 // accents are kept: é is not e
		{searchQ("οδυσσευς "), ids("inbox", 3), false}, // final sigma is sigma
		{searchQ("Οδυσσευσ"), ids("inbox", 3), false},
		{searchQ("final"), ids("inbox", 3), false}, // the ﬁ ligature folds to fi
		{searchQ("ärger"), ids("inbox", 4), false},
		{searchQ("ÄRGER DRUCKER "), ids("inbox", 4), false},
	})
}

func testSearchRanking(t *testing.T, f *fixture) {
	// "deploy" in the titles of 2 and 5, in the bodies of 1, 3 and 6, in a tag of 4.
	f.create("inbox", "c1", withTitle("one"), withBody("deploy notes"))
	f.create("inbox", "c2", withTitle("Deploy the API"))
	f.create("inbox", "c3", withTitle("three"), withBody("we deploy on Fridays"))
	f.create("inbox", "c4", withTitle("four"), withTags("deploy"))
	f.create("inbox", "c5", withTitle("deploy docs"), withBody("deploy"))
	f.create("inbox", "c6", withTitle("six"), withBody("DEPLOY"))
	f.create("inbox", "c7", withTitle("seven"))
	// Two words: 10 and 8 have both in the title; 9 has one in its title
	// and one in its body, so it follows 8 although it is newer.
	f.create("inbox", "c8", withTitle("rollout plan"), withBody("alpha"))
	f.create("inbox", "c9", withTitle("rollout"), withBody("plan alpha"))
	f.create("inbox", "c10", withTitle("Rollout plan, v2"))
	want := ids("inbox", 5, 2, 6, 4, 3, 1)
	f.checkPages([]pageCase{
		{searchQ("deploy"), want, false},
		{searchQ("deploy "), want, false},
		// Several words: tier 0 only when all of them are in the title.
		{searchQ("deploy docs "), ids("inbox", 5), false},
		{searchQ("deploy api"), ids("inbox", 2), false},
	})
	for _, limit := range []int{1, 2, 3, 4, 10} {
		for query, want := range map[string][]string{"deploy": want, "deploy ": want,
			"rollout plan ": ids("inbox", 10, 8, 9), "plan rollout": ids("inbox", 10, 8, 9), "rollout alpha ": ids("inbox", 9, 8)} {
			got := pageAllSearch(t, f, board.TicketQuery{Workspace: "inbox", Query: query, Limit: limit})
			if !slices.Equal(got, want) {
				t.Errorf("query %q paged by %d: %v, want %v", query, limit, got, want)
			}
		}
	}
}

// pageAllSearch follows a search page by page, tier and number, and
// returns every id it gave.
func pageAllSearch(t *testing.T, f *fixture, q board.TicketQuery) []string {
	t.Helper()
	var got []string
	for calls := 0; ; calls++ {
		if calls > 100 {
			t.Fatalf("%s: paging never ends; got %v so far", describeQuery(q), got)
		}
		page := f.list(q)
		if len(page.Tickets) > q.Limit {
			t.Fatalf("%s: page of %d tickets, limit %d", describeQuery(q), len(page.Tickets), q.Limit)
		}
		got = append(got, ticketIDs(page.Tickets)...)
		next := page.ContinueBelow()
		if next == 0 {
			return got
		}
		if page.NextTier == q.Tier && q.Before != 0 && next >= q.Before || page.NextTier < q.Tier {
			t.Fatalf("%s: continues at tier %d below %d after tier %d below %d: no progress", describeQuery(q), page.NextTier, next, q.Tier, q.Before)
		}
		q.Before, q.Tier = next, page.NextTier
	}
}

func testSearchFollowsEdits(t *testing.T, f *fixture) {
	a := f.create("inbox", "c1", withTitle("Broken login page"), withBody("users see a spinner"), withTags("auth"))
	f.create("inbox", "c2", withTitle("colours"), withBody("spinner colour"))
	f.checkPages([]pageCase{
		{searchQ("login"), ids("inbox", 1), false},
		{searchQ("spinner"), ids("inbox", 2, 1), false}, // both in the body: newest first
		{searchQ("auth "), ids("inbox", 1), false},
	})
	up := f.updateTx(a.Ticket, alice, "u1", f.now(), []string{"title", "body", "tags"}, func(t *board.Ticket) {
		t.Title = "Broken spinner"
		t.Body = "the login page was fine"
		t.Tags = []string{"ui"}
	})
	f.save(up)
	f.checkPages([]pageCase{
		{searchQ("users"), nil, false}, // a word removed by the edit no longer matches
		{searchQ("auth "), nil, false}, // nor a removed tag
		{searchQ("ui "), ids("inbox", 1), false},
		{searchQ("fine "), ids("inbox", 1), false},
		{searchQ("login"), ids("inbox", 1), false},        // moved from title to body
		{searchQ("spinner"), ids("inbox", 1, 2), false},   // now in both titles: newest first
		{searchQ("broken login"), ids("inbox", 1), false}, // one word in the title, one in the body
	})
	// A move or a note changes no words.
	f.save(f.moveTx(*up.After, "m1", board.StatusDoing, ""))
	f.checkPages([]pageCase{{searchQ("fine "), ids("inbox", 1), false}, {searchQ("users"), nil, false}})
}

func testSearchFilters(t *testing.T, f *fixture) {
	for n := 1; n <= 8; n++ {
		opts := []ticketOpt{withTitle("build " + itoa(n))}
		if n%2 == 0 {
			opts = append(opts, withTags("even"))
		}
		if n%4 == 0 {
			opts = append(opts, withOwner("ai:four"), withStatus(board.StatusDoing))
		}
		f.create("inbox", "c"+itoa(n), opts...)
	}
	q := func(limit int, mod func(*board.TicketQuery)) board.TicketQuery {
		q := board.TicketQuery{Workspace: "inbox", Query: "build", Limit: limit}
		mod(&q)
		return q
	}
	f.checkPages([]pageCase{
		{q(10, func(q *board.TicketQuery) { q.Tag = "even" }), ids("inbox", 8, 6, 4, 2), false},
		{q(10, func(q *board.TicketQuery) { q.Owner = "ai:four" }), ids("inbox", 8, 4), false},
		{q(10, func(q *board.TicketQuery) { q.Status = board.StatusDoing }), ids("inbox", 8, 4), false},
		{q(1, func(q *board.TicketQuery) { q.Status = board.StatusDoing }), ids("inbox", 8), true},
		{q(10, func(q *board.TicketQuery) { q.Status = board.StatusDoing; q.Query = "build 3" }), nil, false},
	})
}

func testSearchHidden(t *testing.T, f *fixture) {
	aiReads := []board.AIPolicy{board.PolicyReadWrite, board.PolicyReadOnly}
	f.create("private", "p", withTitle("secret plans"))
	f.create("inbox", "i", withTitle("public plans"))
	_, err := f.s.ListTickets(f.ctx, board.TicketQuery{Workspace: "private", Query: "plans", Limit: 10, Readable: aiReads})
	assertPolicyError(t, "a search of a hidden workspace", err, board.PolicyHidden)
	page := f.list(board.TicketQuery{Workspace: "inbox", Query: "plans", Limit: 10, Readable: aiReads})
	if got := ticketIDs(page.Tickets); !slices.Equal(got, ids("inbox", 1)) {
		t.Errorf("a search of inbox for AI: %v, want only inbox's ticket", got)
	}
	// People read it.
	f.checkPages([]pageCase{{board.TicketQuery{Workspace: "private", Query: "secret", Limit: 10}, ids("private", 1), false}})
}

func testSearchNoWords(t *testing.T, f *fixture) {
	f.create("inbox", "c1", withTitle("a % b"))
	_, err := f.s.ListTickets(f.ctx, searchQ("% -- ?"))
	var e *board.Error
	if !errors.As(err, &e) || e.Code != board.CodeInvalid {
		t.Fatalf("a query of punctuation only: %v, want an invalid error", err)
	}
}

func testSearchCJK(t *testing.T, f *fixture) {
	f.create("inbox", "c1", withTitle("Claude Code から追加: LED 点滅の記事案"), withBody("ブログ記事の下書きを確認する。両方を比較して first draft を決める"))
	f.create("inbox", "c2", withTitle("ブログ記事の下書きを確認する"))
	f.create("inbox", "c3", withTitle("数据库查询优化"), withBody("索引重建"))
	f.create("inbox", "c4", withTitle("검색 기능 개선"), withBody("한국어 문서 검색"))
	f.create("inbox", "c5", withTitle("サーバー移行"), withTags("インフラ"))
	f.create("inbox", "c6", withTitle("six"), withBody("下書を見て書き直す")) // 下書 and 書き, apart
	f.create("inbox", "c7", withTitle("下書と書き"), withBody("下書きを見る"))  // apart in the title, whole in the body
	f.checkPages([]pageCase{
		// Any two or more adjacent characters of a run, in title, body or tags.
		{searchQ("記事"), ids("inbox", 2, 1), false},
		{searchQ("記事案"), ids("inbox", 1), false},
		{searchQ("下書き"), ids("inbox", 2, 7, 1), false}, // title of 2 first, then the bodies of 7 and 1
		{searchQ("下書"), ids("inbox", 7, 2, 6, 1), false},
		{searchQ("下書と書き"), ids("inbox", 7), false},
		{searchQ("確認"), ids("inbox", 2, 1), false},
		{searchQ("比較"), ids("inbox", 1), false},
		{searchQ("両方"), ids("inbox", 1), false},
		{searchQ("ブログ記事の下書き"), ids("inbox", 2, 1), false},
		{searchQ("数据"), ids("inbox", 3), false},
		{searchQ("库查询"), ids("inbox", 3), false},
		{searchQ("重建"), ids("inbox", 3), false},
		{searchQ("검색"), ids("inbox", 4), false},
		{searchQ("기능 개선"), ids("inbox", 4), false},
		{searchQ("한국어"), ids("inbox", 4), false},
		{searchQ("サーバー"), ids("inbox", 5), false}, // ー is Katakana
		{searchQ("バー移行"), ids("inbox", 5), false},
		{searchQ("インフラ"), ids("inbox", 5), false},
		// Characters that are not adjacent are not found.
		{searchQ("記の"), nil, false},
		{searchQ("記確"), nil, false},
		{searchQ("查优"), nil, false},
		{searchQ("개기"), nil, false},
		{searchQ("移サ"), nil, false},
		{searchQ("記事の記事案"), nil, false}, // each pair is in ticket 1, but not all adjacent
		// Mixed scripts: every part is needed; a run splits where the script changes.
		{searchQ("LED 点滅"), ids("inbox", 1), false},
		{searchQ("LED点滅"), ids("inbox", 1), false},
		{searchQ("led点滅 "), ids("inbox", 1), false}, // Latin case folding is unchanged
		{searchQ("記事 draft"), ids("inbox", 1), false},
		{searchQ("記事案 DRA"), ids("inbox", 1), false}, // the Latin last word is a prefix
		{searchQ("下書き missing "), nil, false},
		{searchQ("検索 검색"), nil, false},
	})
	for _, q := range []string{"記", "LED 点", "検索の記 事"} {
		_, err := f.s.ListTickets(f.ctx, searchQ(q))
		var e *board.Error
		if !errors.As(err, &e) || e.Code != board.CodeInvalid {
			t.Errorf("a query with a one-character run %q: %v, want an invalid error", q, err)
		}
	}
}

func testSearchCJKRanking(t *testing.T, f *fixture) {
	// 記事 in the titles of 2 and 5, in the bodies of 1, 3 and 6, in a tag of 4.
	f.create("inbox", "c1", withTitle("一"), withBody("記事のメモ"))
	f.create("inbox", "c2", withTitle("新しい記事"))
	f.create("inbox", "c3", withTitle("三"), withBody("金曜に記事を書く"))
	f.create("inbox", "c4", withTitle("四"), withTags("記事"))
	f.create("inbox", "c5", withTitle("記事の一覧"), withBody("記事"))
	f.create("inbox", "c6", withTitle("六"), withBody("ブログ記事"))
	f.create("inbox", "c7", withTitle("七"), withBody("記 事"))
	want := ids("inbox", 5, 2, 6, 4, 3, 1)
	for _, limit := range []int{1, 2, 4, 10} {
		if got := pageAllSearch(t, f, board.TicketQuery{Workspace: "inbox", Query: "記事", Limit: limit}); !slices.Equal(got, want) {
			t.Errorf("記事 paged by %d: %v, want %v", limit, got, want)
		}
	}
}

func testSearchCJKLongBody(t *testing.T, f *fixture) {
	// A run of 1 500 different characters has 1 499 different pairs: the
	// first MaxOtherWords of them are indexed, the rest are not.
	var run []rune
	for i := range 1500 {
		run = append(run, rune(0x4E00+i))
	}
	f.create("inbox", "c1", withTitle("長い本文"), withBody(string(run)))
	pair := func(i int) string { return string(run[i : i+2]) }
	f.checkPages([]pageCase{
		{searchQ("本文"), ids("inbox", 1), false},
		{searchQ(pair(0)), ids("inbox", 1), false},
		{searchQ(pair(board.MaxOtherWords - 1)), ids("inbox", 1), false},
		{searchQ(pair(board.MaxOtherWords)), nil, false},
		{searchQ(pair(len(run) - 2)), nil, false},
	})
}
