package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// mirrorVocabulary makes titles that share words often, so lookups find
// many candidates and ties.
var mirrorVocabulary = strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel")

func mirrorTitle(r *rand.Rand) string {
	n := 2 + r.IntN(3)
	words := make([]string, n)
	for i := range words {
		words[i] = mirrorVocabulary[r.IntN(len(mirrorVocabulary))]
	}
	return strings.Join(words, " ")
}

// mirrorQueries are lookups of one to SimilarWords words, with and without
// an excluded number.
func mirrorQueries() []board.SimilarQuery {
	var out []board.SimilarQuery
	for n := 1; n <= len(mirrorVocabulary); n++ {
		for _, exclude := range []int64{0, 3, 17} {
			out = append(out, board.SimilarQuery{Words: mirrorVocabulary[len(mirrorVocabulary)-n:], Exclude: exclude})
		}
	}
	return append(out, board.SimilarQuery{Words: []string{"alpha", "nowhere"}}, board.SimilarQuery{})
}

// describeCandidates is what a lookup answered, every field it reads.
func describeCandidates(found []board.Ticket, err error) string {
	var b strings.Builder
	var denied *board.PolicyError
	switch {
	case errors.Is(err, board.ErrNotFound):
		return "not found"
	case errors.As(err, &denied):
		return "refused: " + string(denied.Policy)
	case err != nil:
		return "error: " + err.Error()
	}
	for _, t := range found {
		owner := "-"
		if t.Owner != nil {
			owner = *t.Owner
		}
		fmt.Fprintf(&b, "[%s %s %d %q %s %s] ", t.ID, t.Workspace, t.Number, t.Title, t.Status, owner)
	}
	return b.String()
}

// similarByRule answers q the slow way, without the mirror's code: the
// workspace's policy and every ticket's title read from the tables, each
// title split into its words (the title tier of board.IndexWords), each
// word's board.SimilarPerWord newest numbers, board.SimilarCandidateNumbers'
// pick, and the picked tickets' rows read by key.
func similarByRule(t *testing.T, s *Store, q board.SimilarQuery) ([]board.Ticket, error) {
	t.Helper()
	var policy string
	switch err := s.read.QueryRowContext(t.Context(), `SELECT ai_policy FROM workspaces WHERE slug = ?`, q.Workspace).Scan(&policy); {
	case errors.Is(err, sql.ErrNoRows):
		return nil, board.ErrNotFound
	case err != nil:
		t.Fatal(err)
	}
	if err := board.CheckPolicy(q.Readable, board.AIPolicy(policy)); err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(t.Context(), `SELECT number, title FROM tickets WHERE workspace = ? ORDER BY number DESC`, q.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	perWord := make([][]int64, len(q.Words))
	for rows.Next() {
		var number int64
		var title string
		if err := rows.Scan(&number, &title); err != nil {
			t.Fatal(err)
		}
		words := board.IndexWords(board.Ticket{Title: title}).Title
		for i, w := range q.Words {
			if slices.Contains(words, w) && len(perWord[i]) < board.SimilarPerWord {
				perWord[i] = append(perWord[i], number)
			}
		}
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	var out []board.Ticket
	for _, n := range board.SimilarCandidateNumbers(perWord, q.Exclude) {
		var tk board.Ticket
		var owner sql.NullString
		if err := s.read.QueryRowContext(t.Context(), `SELECT id, workspace, number, title, status, owner FROM tickets WHERE workspace = ? AND number = ?`,
			q.Workspace, n).Scan(&tk.ID, &tk.Workspace, &tk.Number, &tk.Title, &tk.Status, &owner); err != nil {
			t.Fatal(err)
		}
		tk.Owner = stringPtr(owner)
		out = append(out, tk)
	}
	return out, nil
}

// requireMirrorMatchesTables asks every query of each workspace of the
// mirror and of the tables (similarByRule), and fails on any difference.
func requireMirrorMatchesTables(t *testing.T, s *Store, step string, workspaces ...string) {
	t.Helper()
	for _, ws := range workspaces {
		for _, q := range mirrorQueries() {
			q.Workspace = ws
			q.Readable = []board.AIPolicy{board.PolicyReadWrite, board.PolicyReadOnly}
			got := describeCandidates(s.SimilarCandidates(t.Context(), q))
			want := describeCandidates(similarByRule(t, s, q))
			if got != want {
				t.Fatalf("%s: %s %v excluding %d:\nmirror %s\ntables %s", step, ws, q.Words, q.Exclude, got, want)
			}
		}
	}
}

func (s *Store) mirrorBuilds() int {
	s.mirror.mu.RLock()
	defer s.mirror.mu.RUnlock()
	return s.mirror.builds
}

// rawWrite runs SQL through the committer as any write path would: the
// mirror learns of it from the triggers, not from the code that wrote.
func rawWrite(t *testing.T, s *Store, query string, args ...any) {
	t.Helper()
	if err := s.inTx(t.Context(), func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, query, args...)
		return err
	}); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// The mirror answers every lookup as the tables do, after each kind of
// write, whichever code made it: creates, retitles, moves, owners, a
// write that failed (alone, and beside one that committed in the same
// batch), a policy change, a workspace and a ticket deleted. It is kept,
// not read again, through all of those; another process's writes make it
// read again, at this store's next write.
func TestSimilarMirrorAnswersAsTheTables(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	svc, err := board.NewService(board.Config{Store: s, BaseURL: "https://board.test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := board.WithPrincipal(t.Context(), board.Principal{Author: "ai:mirror", Source: board.SourceMCP})
	r := rand.New(rand.NewPCG(1, 2))
	rawWrite(t, s, `INSERT INTO workspaces (slug, name, ai_policy) VALUES ('ops', 'Ops', 'read_write')`)
	spaces := []string{"inbox", "ops"}
	create := func(svc *board.Service, i int) string {
		t.Helper()
		res, err := svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: fmt.Sprintf("c-%p-%d", svc, i), Workspace: spaces[i%2],
			NewTicket: board.NewTicket{Title: mirrorTitle(r)}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Ticket.ID
	}
	for i := range 40 {
		create(svc, i)
	}
	requireMirrorMatchesTables(t, s, "created", spaces...)
	builds := s.mirrorBuilds()
	if builds != len(spaces) {
		t.Fatalf("%d workspaces read into the mirror, want %d", builds, len(spaces))
	}

	for i := range 30 {
		id := fmt.Sprintf("%s-%d", spaces[i%2], 1+r.IntN(20))
		title := mirrorTitle(r)
		if _, err := svc.UpdateTicket(ctx, board.UpdateTicketInput{RequestID: fmt.Sprintf("u-%d", i), ID: id, Title: &title}); err != nil {
			t.Fatal(err)
		}
	}
	requireMirrorMatchesTables(t, s, "retitled", spaces...)
	for i := range 12 {
		status := board.StatusDone
		if i%3 == 2 {
			status = board.StatusDoing
		}
		if _, err := svc.MoveTicket(ctx, board.MoveTicketInput{RequestID: fmt.Sprintf("m-%d", i), ID: fmt.Sprintf("inbox-%d", 1+2*(i%8)), Status: status}); err != nil {
			t.Fatal(err)
		}
	}
	requireMirrorMatchesTables(t, s, "moved", spaces...)
	alice := "human:alice"
	owner := board.Nullable{Set: true, Value: &alice}
	if _, err := svc.UpdateTicket(ctx, board.UpdateTicketInput{RequestID: "o-1", ID: "ops-2", Owner: owner}); err != nil {
		t.Fatal(err)
	}
	rawWrite(t, s, `UPDATE tickets SET title = 'golf hotel echo', owner = 'ai:other' WHERE workspace = 'ops' AND number = 4`)
	requireMirrorMatchesTables(t, s, "owners and a title written by hand", spaces...)

	// A write that fails rolls back its savepoint: the mirror learns
	// nothing of it, alone or beside a write that commits in its batch.
	failed := errors.New("refused on purpose")
	failing := func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE tickets SET title = 'alpha alpha bravo', status = 'hold' WHERE workspace = 'inbox'`); err != nil {
			return err
		}
		return failed
	}
	if err := s.inTx(t.Context(), failing); !errors.Is(err, failed) {
		t.Fatalf("failing write: %v", err)
	}
	requireMirrorMatchesTables(t, s, "a failed write", spaces...)
	s.hooks.Store(&hooks{collect: func(n int) bool { return n < 2 }})
	var wg sync.WaitGroup
	var errs [2]error
	wg.Go(func() { errs[0] = s.inTx(t.Context(), failing) })
	wg.Go(func() {
		errs[1] = s.inTx(t.Context(), func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `UPDATE tickets SET title = 'charlie delta delta' WHERE workspace = 'inbox' AND number = 6`)
			return err
		})
	})
	wg.Wait()
	s.hooks.Store(nil)
	if !errors.Is(errs[0], failed) || errs[1] != nil {
		t.Fatalf("one batch, a failing and a committing write: %v, %v", errs[0], errs[1])
	}
	requireMirrorMatchesTables(t, s, "a batch with a failed write beside a committed one", spaces...)

	rawWrite(t, s, `UPDATE workspaces SET ai_policy = 'hidden' WHERE slug = 'ops'`)
	requireMirrorMatchesTables(t, s, "a workspace hidden", spaces...)
	rawWrite(t, s, `UPDATE workspaces SET ai_policy = 'read_write' WHERE slug = 'ops'`)
	rawWrite(t, s, `INSERT INTO workspaces (slug, name, ai_policy) VALUES ('brief', 'Brief', 'read_write')`)
	requireMirrorMatchesTables(t, s, "a new workspace", "brief")
	rawWrite(t, s, `DELETE FROM workspaces WHERE slug = 'brief'`)
	requireMirrorMatchesTables(t, s, "a workspace deleted", "brief")
	id := create(svc, 100)
	rawWrite(t, s, `DELETE FROM tickets WHERE id = ?`, id)
	requireMirrorMatchesTables(t, s, "a ticket deleted", spaces...)
	if got := s.mirrorBuilds(); got != builds+1 {
		t.Fatalf("%d workspaces read into the mirror, want %d: the writes did not keep it", got, builds+1)
	}

	// Another store on the file (an admin command beside the server)
	// writes: at this store's next write the mirror is read again.
	other, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	otherSvc, err := board.NewService(board.Config{Store: other, BaseURL: "https://board.test"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		create(otherSvc, i)
	}
	rawWrite(t, other, `UPDATE tickets SET title = 'alpha bravo charlie delta' WHERE workspace = 'inbox' AND number = 2`)
	builds = s.mirrorBuilds()
	create(svc, 101)
	requireMirrorMatchesTables(t, s, "after another process wrote", spaces...)
	if got := s.mirrorBuilds(); got != builds+len(spaces) {
		t.Fatalf("%d workspaces read into the mirror, want %d: another process's writes were not noticed", got, builds+len(spaces))
	}
}

// A build reads its workspace while writes commit: those writes are
// replayed onto what it read before it is kept, and nothing is lost.
func TestSimilarMirrorBuildMeetsWrites(t *testing.T) {
	s, svc := openSimilarBoard(t, 30)
	ctx := board.WithPrincipal(t.Context(), board.Principal{Author: "ai:mirror", Source: board.SourceMCP})
	s.mirror.drop(true)
	once := sync.Once{}
	s.hooks.Store(&hooks{mirrorRead: func() {
		once.Do(func() {
			// The build has read; these commit before it keeps it.
			title := "alpha bravo charlie"
			if _, err := svc.UpdateTicket(ctx, board.UpdateTicketInput{RequestID: "during-u", ID: "inbox-5", Title: &title}); err != nil {
				t.Error(err)
			}
			if _, err := svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: "during-c", Workspace: "inbox",
				NewTicket: board.NewTicket{Title: "alpha bravo delta"}}); err != nil {
				t.Error(err)
			}
			if _, err := svc.MoveTicket(ctx, board.MoveTicketInput{RequestID: "during-m", ID: "inbox-7", Status: board.StatusDone}); err != nil {
				t.Error(err)
			}
		})
	}})
	if _, err := s.SimilarCandidates(t.Context(), board.SimilarQuery{Workspace: "inbox", Words: []string{"alpha", "bravo"}}); err != nil {
		t.Fatal(err)
	}
	s.hooks.Store(nil)
	if got := s.mirrorBuilds(); got != 1 {
		t.Fatalf("%d builds kept, want 1", got)
	}
	requireMirrorMatchesTables(t, s, "writes during the build", "inbox")
	found, err := s.SimilarCandidates(t.Context(), board.SimilarQuery{Workspace: "inbox", Words: []string{"alpha", "bravo"}})
	if err != nil || describeCandidates(found, nil) == "" {
		t.Fatalf("the tickets written during the build are not found: %v %v", found, err)
	}
}

// Writers, lookups and drops (each forcing a build that meets the writes)
// race; once the writes end, the mirror answers as the tables do.
func TestSimilarMirrorUnderRacingWrites(t *testing.T) {
	s, svc := openSimilarBoard(t, 0)
	ctx := board.WithPrincipal(t.Context(), board.Principal{Author: "ai:mirror", Source: board.SourceMCP})
	var writers, others sync.WaitGroup
	stop := make(chan struct{})
	for w := range 6 {
		writers.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for i := range 40 {
				var err error
				switch n := int64(1 + r.IntN(20)); {
				case i < 10 || r.IntN(3) == 0:
					_, err = svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: fmt.Sprintf("w%d-%d", w, i), Workspace: "inbox",
						NewTicket: board.NewTicket{Title: mirrorTitle(r)}})
				case r.IntN(2) == 0:
					title := mirrorTitle(r)
					_, err = svc.UpdateTicket(ctx, board.UpdateTicketInput{RequestID: fmt.Sprintf("w%d-%d", w, i), ID: fmt.Sprintf("inbox-%d", n), Title: &title})
				default:
					_, err = svc.MoveTicket(ctx, board.MoveTicketInput{RequestID: fmt.Sprintf("w%d-%d", w, i), ID: fmt.Sprintf("inbox-%d", n),
						Status: []board.Status{board.StatusDone, board.StatusDoing}[r.IntN(2)]})
				}
				if err != nil && board.ErrorCode(err) != board.CodeNotFound && board.ErrorCode(err) != board.CodeConflict {
					t.Error(err)
					return
				}
			}
		})
	}
	// Three goroutines look up; a fourth drops the mirror before each of
	// its lookups, so builds keep meeting the writes.
	for i := range 4 {
		others.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if i == 3 {
					s.mirror.drop(true)
				}
				if _, err := s.SimilarCandidates(t.Context(), board.SimilarQuery{Workspace: "inbox", Words: []string{"alpha", "echo"}}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	writers.Wait()
	close(stop)
	others.Wait()
	requireMirrorMatchesTables(t, s, "after racing writes", "inbox")
	if s.mirrorBuilds() < 2 {
		t.Fatalf("%d builds: the drops did not make builds race the writes", s.mirrorBuilds())
	}
}

// BenchmarkSimilarMirrorBuild reads a workspace of 20 000 tickets (titles
// of seven to nine words, a few hundred distinct) into the mirror: the
// time of a build (a workspace's first lookup after the store opens) and
// the heap it keeps per ticket.
func BenchmarkSimilarMirrorBuild(b *testing.B) {
	const tickets = 20000
	s, err := Open(b.Context(), filepath.Join(b.TempDir(), FileName))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if err := s.inTx(b.Context(), func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
			INSERT INTO tickets (id, workspace, number, title, body, status, priority, owner, due, tags, links,
				created_by, created_at, updated_at, completed_at, url, version)
			SELECT 'inbox-' || i, 'inbox', i,
				printf('Fix the %s handler timeout in service%d after deploy %d', substr('alphabravocharliedeltaecho', 1 + (i % 5) * 5, 5), i % 300, i % 97),
				'', 'candidate', 'normal', NULL, NULL, '[]', '[]', 'ai:bench', '2026-01-01T00:00:00.000000000Z',
				'2026-01-01T00:00:00.000000000Z', NULL, 'https://board.test/inbox-' || i, 1 FROM n`, tickets)
		return err
	}); err != nil {
		b.Fatal(err)
	}
	var before, after runtime.MemStats
	var kept uint64
	for b.Loop() {
		b.StopTimer()
		s.mirror.drop(true)
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		if _, _, err := s.buildMirror(b.Context(), "inbox"); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		kept = after.HeapAlloc - before.HeapAlloc
		b.StartTimer()
	}
	if s.mirrorBuilds() == 0 {
		b.Fatal("nothing was built")
	}
	b.ReportMetric(float64(kept)/tickets, "heap-B/ticket")
}
