package sqlite

import (
	"context"
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

// The lookup reads the workspace's policy with the title-word table once
// for all the title's words, then the candidates' rows: two statements
// however many words the title has, one when no ticket shares enough words.
func TestSimilarLookupStatements(t *testing.T) {
	s, _ := openSimilarBoard(t, 30)
	cases := []struct {
		words      []string
		statements int64
		found      int
	}{
		{[]string{"similar"}, 2, board.SimilarCandidates},
		{[]string{"similar", "ticket", "number"}, 2, board.SimilarCandidates},
		{[]string{"similar", "ticket", "number", "1025", "alpha", "bravo", "charlie", "delta"}, 2, 1},
		{[]string{"unrelated", "words"}, 1, 0},
	}
	for _, c := range cases {
		rec := obs.NewRequest("similar")
		got, err := s.SimilarCandidates(obs.NewContext(t.Context(), rec), board.SimilarQuery{Workspace: "inbox", Words: c.words})
		if err != nil {
			t.Fatalf("%v: %v", c.words, err)
		}
		if len(got) != c.found {
			t.Errorf("%v: %d candidates, want %d", c.words, len(got), c.found)
		}
		if n := rec.StoreRequests(); n != c.statements {
			t.Errorf("%v: %d statements, want %d", c.words, n, c.statements)
		}
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
	}
	if want := "[26 30 29 28 27 25 24 23 22 21]"; fmt.Sprint(numbers) != want {
		t.Errorf("candidates %v, want %s", numbers, want)
	}
	if _, err := s.SimilarCandidates(t.Context(), board.SimilarQuery{Workspace: "inbox",
		Words: strings.Fields("a b c d e f g h i")}); err == nil {
		t.Error("more words than SimilarWords: no error")
	}
}

// The plans read only what the answer needs: each word's matches are a
// search of the title-word table by (workspace, word), newest first,
// stopping at the limit (no sort of all the matches), the policy is one
// search of the workspaces' key, and the candidates are found each by
// their (workspace, number) key: no scan, and no temporary index of the
// numbers (an IN list builds one on every call).
func TestSimilarLookupPlans(t *testing.T) {
	s, _ := openSimilarBoard(t, 0)
	plan := func(q string, args ...any) string {
		t.Helper()
		rows, err := s.read.QueryContext(t.Context(), `EXPLAIN QUERY PLAN `+q, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			out = append(out, detail)
		}
		return strings.Join(out, "; ")
	}
	words := make([]any, similarWordArg-1+board.SimilarWords)
	words[0], words[1] = "inbox", board.SimilarPerWord
	got := plan(similarNumbersSQL, words...)
	if n := strings.Count(got, "SEARCH ticket_title_words USING PRIMARY KEY (workspace=? AND word=?)"); n != board.SimilarWords ||
		strings.Count(got, "SEARCH workspaces USING INDEX") != 1 || strings.Contains(got, "TEMP B-TREE") {
		t.Errorf("the words' plan %q: want the workspace's row and %d searches of the title-word table by (workspace, word), none sorted", got, board.SimilarWords)
	}
	candidates := make([]any, 1+board.SimilarCandidates)
	candidates[0] = "inbox"
	got = plan(similarRowsSQL, candidates...)
	if n := strings.Count(got, "SEARCH tickets USING INDEX"); n != board.SimilarCandidates ||
		strings.Count(got, "(workspace=? AND number=?)") != n || strings.Contains(got, "LIST SUBQUERY") {
		t.Errorf("the candidates' plan %q: want %d searches by (workspace, number), no list of numbers built", got, board.SimilarCandidates)
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
