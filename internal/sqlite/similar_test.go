package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
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

// The mirror and a lookup from a snapshot pick the candidates by
// board.SimilarCandidateNumbers' rule, which the DynamoDB store runs too:
// the same tickets in the same order as the rule gives from each word's
// newest matches, found here by splitting every title in the tables
// (similarByRule), for titles sharing few or many words, with ties, and
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
	queries := [][]string{
		{"alpha"}, {"alpha", "bravo"}, {"alpha", "bravo", "charlie"}, {"similar", "ticket"}, {"similar", "ticket", "number"},
		{"charlie", "delta", "similar", "bravo"}, {"echo", "alpha", "bravo", "charlie", "delta", "similar", "ticket", "number"},
		{"nothing", "alpha"}, {"nothing"},
	}
	for _, words := range queries {
		for _, exclude := range []int64{0, 45, 50, 60} {
			q := board.SimilarQuery{Workspace: "inbox", Words: words, Exclude: exclude}
			want := describeCandidates(similarByRule(t, s, q))
			for _, from := range []struct {
				name   string
				lookup func(context.Context, board.SimilarQuery) ([]board.Ticket, error)
			}{{"mirror", s.SimilarCandidates}, {"snapshot", s.similarFromSnapshot}} {
				if got := describeCandidates(from.lookup(t.Context(), q)); got != want {
					t.Errorf("%s: %v, excluding %d: candidates\n%s\nthe rule picks\n%s", from.name, words, exclude, got, want)
				}
			}
		}
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

// Lookups that arrive while their workspace is being read into the mirror
// wait for that one build rather than read the workspace each: however
// many ask at once, the workspace is read once, and every one answers as
// the tables do.
func TestSimilarLookupsWaitForOneBuild(t *testing.T) {
	s, _ := openSimilarBoard(t, 30)
	s.mirror.drop(true)
	const lookups = 8
	var waiting atomic.Int32
	release := make(chan struct{})
	s.hooks.Store(&hooks{
		mirrorRead: func() { <-release },
		mirrorWait: func() { waiting.Add(1) },
	})
	q := board.SimilarQuery{Workspace: "inbox", Words: []string{"similar", "ticket", "1025"}}
	want := describeCandidates(similarByRule(t, s, q))
	answers := make([]string, lookups)
	statements := make([]int64, lookups)
	var wg sync.WaitGroup
	for i := range lookups {
		wg.Go(func() {
			rec := obs.NewRequest("similar")
			answers[i] = describeCandidates(s.SimilarCandidates(obs.NewContext(t.Context(), rec), q))
			statements[i] = rec.StoreRequests()
		})
	}
	deadline := time.Now().Add(10 * time.Second)
	for waiting.Load() < lookups-1 {
		if time.Now().After(deadline) {
			close(release)
			t.Fatalf("%d of %d lookups waited for the build under way", waiting.Load(), lookups-1)
		}
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	s.hooks.Store(nil)
	var total int64
	for i := range lookups {
		total += statements[i]
		if answers[i] != want {
			t.Errorf("lookup %d answered\n%s\nwant\n%s", i, answers[i], want)
		}
	}
	if total != 1 || s.mirrorBuilds() != 1 {
		t.Errorf("%d statements and %d builds for %d lookups at once, want 1 and 1", total, s.mirrorBuilds(), lookups)
	}
}

// When the mirror cannot be kept (the write connection notes no changes),
// every lookup reads the workspace for itself, one statement, keeps
// nothing, and still answers as the tables do, after writes too.
func TestSimilarWithoutTheMirror(t *testing.T) {
	s, svc := openSimilarBoard(t, 30)
	s.mirror.drop(false)
	ctx := board.WithPrincipal(t.Context(), board.Principal{Author: "ai:similar", Source: board.SourceMCP})
	for round := range 2 {
		for _, words := range [][]string{{"similar", "ticket", "1025"}, {"alpha", "similar"}, {"nothing"}} {
			q := board.SimilarQuery{Workspace: "inbox", Words: words}
			rec := obs.NewRequest("similar")
			got := describeCandidates(s.SimilarCandidates(obs.NewContext(t.Context(), rec), q))
			if want := describeCandidates(similarByRule(t, s, q)); got != want || rec.StoreRequests() != 1 {
				t.Errorf("round %d, %v: %s in %d statements, want\n%s in 1", round, words, got, rec.StoreRequests(), want)
			}
		}
		if _, err := svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: fmt.Sprint("w-", round), Workspace: "inbox",
			NewTicket: board.NewTicket{Title: "alpha similar ticket"}}); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.mirrorBuilds(); n != 0 {
		t.Errorf("%d workspaces kept in a mirror that is not live", n)
	}
	rec := obs.NewRequest("similar")
	if _, err := s.SimilarCandidates(obs.NewContext(t.Context(), rec), board.SimilarQuery{Workspace: "nowhere", Words: []string{"similar"}}); !errors.Is(err, board.ErrNotFound) {
		t.Errorf("a workspace that does not exist: %v, want board.ErrNotFound", err)
	}
}
