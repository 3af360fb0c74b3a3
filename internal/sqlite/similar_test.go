package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/obs"
)

// openSimilarBoard opens a store whose inbox holds n tickets titled
// "similar ticket number <i>" (every one shares two words with the others),
// created through the service.
func openSimilarBoard(tb testing.TB, n int) (*Store, *board.Service) {
	tb.Helper()
	s, err := Open(context.Background(), filepath.Join(tb.TempDir(), FileName))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	svc, err := board.NewService(board.Config{Store: s, BaseURL: "https://board.test"})
	if err != nil {
		tb.Fatal(err)
	}
	ctx := board.WithPrincipal(context.Background(), board.Principal{Author: "ai:similar", Source: board.SourceMCP})
	for i := range n {
		if _, err := svc.CreateTicket(ctx, board.CreateTicketInput{
			RequestID: fmt.Sprintf("s-%d", i),
			Workspace: "inbox",
			NewTicket: board.NewTicket{Title: fmt.Sprintf("similar ticket number %d", 1000+i)},
		}); err != nil {
			tb.Fatal(err)
		}
	}
	return s, svc
}

// processCPU is the processor time this process has used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// The first lookup of a workspace reads it into the mirror in one
// statement; every later one, whatever the title's words and whether any
// ticket shares enough of them, reads nothing. The table's own lookup is
// one statement too.
func TestSimilarLookupStatements(t *testing.T) {
	s, _ := openSimilarBoard(t, 30)
	cases := []struct {
		words []string
		found int
	}{
		{[]string{"similar"}, board.SimilarCandidates},
		{[]string{"similar", "ticket", "number"}, board.SimilarCandidates},
		{[]string{"similar", "ticket", "number", "1025", "alpha", "bravo", "charlie", "delta"}, 1},
		{[]string{"unrelated", "words"}, 0},
		{nil, 0},
	}
	for i, c := range cases {
		rec := obs.NewRequest("similar")
		got, err := s.SimilarCandidates(obs.NewContext(t.Context(), rec), board.SimilarQuery{Workspace: "inbox", Words: c.words})
		if err != nil {
			t.Fatalf("%v: %v", c.words, err)
		}
		if len(got) != c.found {
			t.Errorf("%v: %d candidates, want %d", c.words, len(got), c.found)
		}
		want := int64(0) // answered from the mirror
		if i == 0 {
			want = 1 // the workspace read into it
		}
		if n := rec.StoreRequests(); n != want {
			t.Errorf("%v: %d statements, want %d", c.words, n, want)
		}
		rec = obs.NewRequest("similar")
		got, err = s.similarCandidatesFromTable(obs.NewContext(t.Context(), rec), board.SimilarQuery{Workspace: "inbox", Words: c.words})
		if err != nil || len(got) != c.found || rec.StoreRequests() != 1 {
			t.Errorf("%v from the table: %d candidates in %d statements (%v), want %d in 1", c.words, len(got), rec.StoreRequests(), err, c.found)
		}
	}
	rec := obs.NewRequest("similar")
	if _, err := s.SimilarCandidates(obs.NewContext(t.Context(), rec), board.SimilarQuery{Workspace: "nowhere", Words: []string{"similar"}}); !errors.Is(err, board.ErrNotFound) || rec.StoreRequests() != 1 {
		t.Errorf("a workspace that does not exist: %v in %d statements, want board.ErrNotFound in 1", err, rec.StoreRequests())
	}
	// The candidates come in SimilarCandidateNumbers' order (most shared
	// words, then newest), each read once: 26 has all three words, the
	// others the two that each of the 20 newest tickets has.
	got, err := s.SimilarCandidates(t.Context(), board.SimilarQuery{Workspace: "inbox", Words: []string{"similar", "ticket", "1025"}})
	if err != nil {
		t.Fatal(err)
	}
	var numbers []int64
	for _, tk := range got {
		numbers = append(numbers, tk.Number)
		if tk.ID != fmt.Sprintf("inbox-%d", tk.Number) || tk.Workspace != "inbox" || tk.Title != fmt.Sprintf("similar ticket number %d", 999+tk.Number) ||
			tk.Status == "" {
			t.Errorf("candidate %+v: fields not read", tk)
		}
	}
	if want := "[26 30 29 28 27 25 24 23 22 21]"; fmt.Sprint(numbers) != want {
		t.Errorf("candidates %v, want %s", numbers, want)
	}
	if _, err := s.SimilarCandidates(t.Context(), board.SimilarQuery{Workspace: "inbox",
		Words: strings.Fields("a b c d e f g h i")}); err == nil {
		t.Error("more words than SimilarWords: no error")
	}
	if _, err := s.SimilarCandidates(t.Context(), board.SimilarQuery{Workspace: "nowhere", Words: []string{"similar"}}); !errors.Is(err, board.ErrNotFound) {
		t.Errorf("a workspace that does not exist: %v, want board.ErrNotFound", err)
	}
}

// The mirror and the statement pick the candidates by
// board.SimilarCandidateNumbers' rule, which the DynamoDB store runs in Go: the same numbers in the same
// order as the rule gives from each word's newest matches, read here one
// word at a time, for titles sharing few or many words, with ties, and
// with a number excluded.
func TestSimilarPicksAsTheRule(t *testing.T) {
	s, svc := openSimilarBoard(t, 45)
	ctx := board.WithPrincipal(t.Context(), board.Principal{Author: "ai:similar", Source: board.SourceMCP})
	for i, title := range []string{"alpha bravo", "alpha charlie ticket", "bravo charlie delta similar", "echo alpha bravo", "alpha bravo charlie"} {
		for j := range 3 + i {
			if _, err := svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: fmt.Sprintf("rule-%d-%d", i, j), Workspace: "inbox",
				NewTicket: board.NewTicket{Title: fmt.Sprintf("%s %d", title, j)}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	newest := func(word string) []int64 {
		rows, err := s.read.QueryContext(t.Context(), `SELECT number FROM ticket_title_words WHERE workspace = 'inbox' AND word = ?
			ORDER BY number DESC LIMIT ?`, word, board.SimilarPerWord)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []int64
		for rows.Next() {
			var n int64
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			out = append(out, n)
		}
		return out
	}
	queries := [][]string{
		{"alpha"}, {"alpha", "bravo"}, {"alpha", "bravo", "charlie"}, {"similar", "ticket"}, {"similar", "ticket", "number"},
		{"charlie", "delta", "similar", "bravo"}, {"echo", "alpha", "bravo", "charlie", "delta", "similar", "ticket", "number"},
		{"nothing", "alpha"}, {"nothing"},
	}
	for _, words := range queries {
		for _, exclude := range []int64{0, 45, 50, 60} {
			perWord := make([][]int64, len(words))
			for i, w := range words {
				perWord[i] = newest(w)
			}
			want := board.SimilarCandidateNumbers(perWord, exclude)
			q := board.SimilarQuery{Workspace: "inbox", Words: words, Exclude: exclude}
			for _, from := range []struct {
				name   string
				lookup func(context.Context, board.SimilarQuery) ([]board.Ticket, error)
			}{{"mirror", s.SimilarCandidates}, {"table", s.similarCandidatesFromTable}} {
				got, err := from.lookup(t.Context(), q)
				if err != nil {
					t.Fatal(err)
				}
				var numbers []int64
				for _, tk := range got {
					numbers = append(numbers, tk.Number)
				}
				if fmt.Sprint(numbers) != fmt.Sprint(want) {
					t.Errorf("%s: %v, excluding %d: candidates %v, the rule picks %v", from.name, words, exclude, numbers, want)
				}
			}
		}
	}
}

// The plan reads only what the answer needs: the policy is one search of
// the workspaces' key; each word's matches are a search of the title-word
// table by (workspace, word), newest first, stopping at the limit (no sort
// of all of a word's matches); and only the picked candidates' rows are
// read, each by its (workspace, number) key.
func TestSimilarLookupPlan(t *testing.T) {
	s, _ := openSimilarBoard(t, 0)
	args := make([]any, similarArgWord-1+board.SimilarWords)
	args[similarArgWorkspace-1], args[similarArgPerWord-1] = "inbox", board.SimilarPerWord
	args[similarArgExclude-1], args[similarArgNeed-1], args[similarArgLimit-1] = 0, 1, board.SimilarCandidates
	rows, err := s.read.QueryContext(t.Context(), `EXPLAIN QUERY PLAN `+similarSQL, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var steps []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		steps = append(steps, detail)
	}
	got := strings.Join(steps, "; ")
	if n := strings.Count(got, "SEARCH ticket_title_words USING PRIMARY KEY (workspace=? AND word=?)"); n != board.SimilarWords ||
		strings.Count(got, "SEARCH workspaces USING INDEX") != 1 || strings.Contains(got, "SCAN t") ||
		strings.Count(got, "SEARCH t USING INDEX") != 1 || !strings.Contains(got, "(workspace=? AND number=?)") {
		t.Errorf("plan %q: want the workspace's row, %d searches of the title-word table by (workspace, word) and the candidates by (workspace, number), no scan",
			got, board.SimilarWords)
	}
}

// BenchmarkSimilarTickets is the lookup a create makes, on a board of a
// few thousand tickets that all share words with the title. Besides the
// wall time it reports the process's CPU time per lookup (cpu-ns/op), which
// other work on the machine moves less.
func BenchmarkSimilarTickets(b *testing.B) {
	_, svc := openSimilarBoard(b, 2000)
	ctx := board.WithPrincipal(context.Background(), board.Principal{Author: "ai:similar", Source: board.SourceMCP})
	cpu0 := processCPU()
	defer func() { b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op") }()
	b.ResetTimer()
	for i := range b.N {
		got, err := svc.SimilarTickets(ctx, board.SimilarInput{Workspace: "inbox",
			Title: fmt.Sprintf("similar ticket number %d", 1000+i%2000), Exclude: fmt.Sprintf("inbox-%d", 1+i%2000)})
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != board.MaxSimilar {
			b.Fatalf("%d similar tickets, want %d", len(got), board.MaxSimilar)
		}
	}
}
