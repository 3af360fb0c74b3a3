package storetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Similar tickets (board/similar.go): the same candidates, and so the same
// answer, on every store.

func similarTests() []contractTest {
	return []contractTest{
		{"similar tickets share most title words, open only, most shared then newest", testSimilarTickets},
		{"a ticket retitled away is no longer similar", testSimilarFollowsEdits},
		{"similar tickets of a hidden workspace do not exist for AI", testSimilarHidden},
		{"Japanese, Chinese and Korean titles are similar by the pairs of characters they share", testSimilarCJK},
	}
}

// similarIDs asks the service over the store, as alice (a person) unless
// ctx says otherwise.
func (f *fixture) similarIDs(p board.Principal, workspace, title, exclude string) []string {
	f.t.Helper()
	svc, err := board.NewService(board.Config{Store: f.s, BaseURL: "https://board.test"})
	if err != nil {
		f.t.Fatal(err)
	}
	got, err := svc.SimilarTickets(board.WithPrincipal(f.ctx, p), board.SimilarInput{Workspace: workspace, Title: title, Exclude: exclude})
	if err != nil {
		f.t.Fatalf("SimilarTickets(%q): %v", title, err)
	}
	var out []string
	for _, s := range got {
		out = append(out, s.ID)
	}
	return out
}

var personAlice = board.Principal{Author: "human:alice", Role: board.RoleMember}

func testSimilarTickets(t *testing.T, f *fixture) {
	f.create("inbox", "c1", withTitle("Login fails on Safari"))                // 1: login, fails, safari
	f.create("inbox", "c2", withTitle("Safari crashes at the login page"))     // 2: safari, login
	f.create("inbox", "c3", withTitle("Billing question"))                     // 3: nothing shared
	done := f.create("inbox", "c4", withTitle("Login fails on Safari again"))  // 4: done below
	f.create("inbox", "c5", withTitle("login fails"), withBody("on Safari"))   // 5: body words do not count
	f.create("inbox", "c6", withTitle("Firefox login fails"))                  // 6: login, fails
	f.create("reference", "r1", withTitle("Login fails on Safari"))            // another workspace
	f.create("inbox", "c7", withTitle("the new one: login fails with safari")) // 7: the ticket just created
	f.save(f.moveTx(done.Ticket, "m4", board.StatusDone, ""))

	got := f.similarIDs(personAlice, "inbox", "Login fails with Safari", "inbox-7")
	// Words looked up: login, fails, safari ("with" too: four runes).
	// Shared: 1 → 3, 2 → 2, 5 → 2, 6 → 2, 4 done, 3 none, 7 excluded.
	// Most shared first, then newest; at most three.
	if want := []string{"inbox-1", "inbox-6", "inbox-5"}; !slices.Equal(got, want) {
		t.Errorf("similar to %q = %v, want %v", "Login fails with Safari", got, want)
	}
	if got := f.similarIDs(personAlice, "inbox", "Quarterly planning", ""); len(got) != 0 {
		t.Errorf("a title sharing no word: %v, want none", got)
	}
	if got := f.similarIDs(personAlice, "inbox", "?? !!", ""); len(got) != 0 {
		t.Errorf("a title without words: %v, want none", got)
	}
	// Short words count only when the title has no longer ones.
	f.create("inbox", "c8", withTitle("Go is ok"))
	if got := f.similarIDs(personAlice, "inbox", "go ok", ""); !slices.Equal(got, []string{"inbox-8"}) {
		t.Errorf("a title of short words: %v, want inbox-8", got)
	}
}

func testSimilarFollowsEdits(t *testing.T, f *fixture) {
	a := f.create("inbox", "c1", withTitle("Printer jams on floor two"))
	f.create("inbox", "c2", withTitle("Printer jams daily"))
	if got := f.similarIDs(personAlice, "inbox", "printer jams", ""); !slices.Equal(got, []string{"inbox-2", "inbox-1"}) {
		t.Fatalf("before the edit: %v, want inbox-2, inbox-1", got)
	}
	f.save(f.retitle(a.Ticket, "u1", "Coffee machine broken"))
	if got := f.similarIDs(personAlice, "inbox", "printer jams", ""); !slices.Equal(got, []string{"inbox-2"}) {
		t.Errorf("after retitling inbox-1: %v, want inbox-2 only", got)
	}
	if got := f.similarIDs(personAlice, "inbox", "coffee machine", ""); !slices.Equal(got, []string{"inbox-1"}) {
		t.Errorf("by its new title: %v, want inbox-1", got)
	}
}

func testSimilarHidden(t *testing.T, f *fixture) {
	f.create("private", "p", withTitle("secret plans for launch"))
	svc, err := board.NewService(board.Config{Store: f.s, BaseURL: "https://board.test"})
	if err != nil {
		t.Fatal(err)
	}
	ai := board.WithPrincipal(f.ctx, board.Principal{Author: "ai:claude"})
	_, err = svc.SimilarTickets(ai, board.SimilarInput{Workspace: "private", Title: "launch plans"})
	var e *board.Error
	if !errors.As(err, &e) || e.Code != board.CodeNotFound {
		t.Errorf("an agent's similar tickets in a hidden workspace: %v, want not_found", err)
	}
	if got := f.similarIDs(personAlice, "private", "launch plans", ""); !slices.Equal(got, []string{"private-1"}) {
		t.Errorf("a person's: %v, want private-1", got)
	}
}

func testSimilarCJK(t *testing.T, f *fixture) {
	f.create("inbox", "c1", withTitle("ブログ記事の下書き"))
	f.create("inbox", "c2", withTitle("サーバーの移行計画"))
	f.create("inbox", "c3", withTitle("数据库查询优化"))
	f.create("inbox", "c4", withTitle("검색 기능 개선"))
	f.create("inbox", "c5", withTitle("記事"), withBody("ブログ記事の下書き")) // body words do not count
	for title, want := range map[string][]string{
		"ブログ記事を確認": {"inbox-1"},
		"サーバー移行":   {"inbox-2"},
		"数据库备份":    {"inbox-3"},
		"검색 기능 버그": {"inbox-4"},
		"会議の議事録":   nil,
		"ブ":        nil, // no pair
	} {
		if got := f.similarIDs(personAlice, "inbox", title, ""); !slices.Equal(got, want) {
			t.Errorf("similar to %q = %v, want %v", title, got, want)
		}
	}
}
