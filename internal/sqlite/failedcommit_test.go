//go:build linux

package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
)

// diskFullChild marks the copy of the test binary that runs with a full
// disk: the file-size limit is the whole process's, so it must not be the
// process that runs every other test.
const diskFullChild = "LEDGER_TEST_DISK_FULL_CHILD"

// TestFailedCommitAnswersNothingDone: with the disk full (a file-size limit
// of 0 bytes, so every write to a file fails and COMMIT with it), one batch
// holds identical creates, different creates, identical notes and an update.
// No call may be answered done or replayed, no call may name a ticket:
// find_request says unknown for every request_id. When the disk recovers, a
// retry of each writes exactly once. The test runs itself again in a child
// process, which carries the limit.
func TestFailedCommitAnswersNothingDone(t *testing.T) {
	if os.Getenv(diskFullChild) == "" {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestFailedCommitAnswersNothingDone$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), diskFullChild+"=1")
		out, err := cmd.CombinedOutput()
		t.Logf("child:\n%s", out)
		if err != nil {
			t.Fatalf("the disk-full run failed: %v", err)
		}
		return
	}
	signal.Ignore(syscall.SIGXFSZ) // a write past the limit fails with EFBIG instead of killing us

	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	// Two services on one store: each orders its own writes to a ticket,
	// so only two of them put identical notes into one batch.
	a, b := newService(t, st), newService(t, st)
	ai := board.WithPrincipal(context.Background(), board.Principal{Author: "ai:test", Source: board.SourceMCP})
	for _, title := range []string{"noted", "updated"} {
		if _, err := a.CreateTicket(ai, board.CreateTicketInput{RequestID: "seed-" + title, Workspace: "inbox", NewTicket: board.NewTicket{Title: title}}); err != nil {
			t.Fatal(err)
		}
	}

	// similar asks the store's similar-tickets lookup (its mirror, read
	// in here before the batch) which tickets have word in their title.
	similar := func(word string) []string {
		t.Helper()
		found, err := st.SimilarCandidates(ai, board.SimilarQuery{Workspace: "inbox", Words: []string{word}})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, tk := range found {
			ids = append(ids, tk.ID+" "+tk.Title)
		}
		return ids
	}
	if got := similar("updated"); len(got) != 1 {
		t.Fatalf("similar to updated before the batch: %v", got)
	}

	title := "renamed"
	type call struct {
		rid string
		run func() (id string, replayed bool, err error) // id: the ticket's or the note's
	}
	create := func(svc *board.Service, rid string) call {
		return call{rid, func() (string, bool, error) {
			r, err := svc.CreateTicket(ai, board.CreateTicketInput{RequestID: rid, Workspace: "inbox", NewTicket: board.NewTicket{Title: "made " + rid}})
			return r.Ticket.ID, r.Replayed, err
		}}
	}
	note := func(svc *board.Service) call {
		return call{"n1", func() (string, bool, error) {
			r, err := svc.AddNote(ai, board.AddNoteInput{RequestID: "n1", ID: "inbox-1", Body: "a note"})
			return r.Note.ID, r.Replayed, err
		}}
	}
	calls := []call{
		create(a, "same"), create(b, "same"), create(a, "same"), create(b, "same"),
		create(a, "d1"), create(b, "d2"),
		note(a), note(b),
		{"u1", func() (string, bool, error) {
			r, err := a.UpdateTicket(ai, board.UpdateTicketInput{RequestID: "u1", ID: "inbox-2", Title: &title})
			return r.Ticket.ID, r.Replayed, err
		}},
	}

	var mu sync.Mutex
	var batchSizes []int
	var commits []error
	sqlite.SetBatchHooks(st, func(n int) bool {
		mu.Lock()
		defer mu.Unlock()
		if len(commits) > 0 {
			return false // only the first batch is held until it is full
		}
		if n == len(calls) {
			batchSizes = append(batchSizes, n)
		}
		return n < len(calls)
	}, nil, func(err error) {
		mu.Lock()
		defer mu.Unlock()
		commits = append(commits, err)
	})
	full := syscall.Rlimit{Cur: 0, Max: ^uint64(0)}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &full); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		id       string
		replayed bool
		err      error
	}
	answers := make([]answer, len(calls))
	storetest.Together(len(calls), func(i int) {
		id, replayed, err := calls[i].run()
		answers[i] = answer{id, replayed, err}
	})
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil { // the disk recovers
		t.Fatal(err)
	}
	sqlite.ClearBatchHooks(st)

	mu.Lock()
	if !slices.Equal(batchSizes, []int{len(calls)}) || len(commits) == 0 || commits[0] == nil {
		t.Fatalf("batches %v, commits %v: want one batch of all %d calls whose COMMIT failed", batchSizes, commits, len(calls))
	}
	t.Logf("the batch's COMMIT failed: %v", commits[0])
	mu.Unlock()
	for i, ans := range answers {
		if ans.err == nil || ans.replayed || ans.id != "" {
			t.Errorf("call %d (%s) on a full disk: id %q replayed=%v err=%v, want a failure naming nothing", i, calls[i].rid, ans.id, ans.replayed, ans.err)
		} else if board.ErrorCode(ans.err) != board.CodeInternal {
			t.Errorf("call %d (%s): %v, want an internal error that says retrying is safe", i, calls[i].rid, ans.err)
		}
	}
	for _, rid := range []string{"same", "d1", "d2", "n1", "u1"} {
		found, err := a.FindRequest(ai, board.FindRequestInput{RequestID: rid})
		if err != nil || found.Status != "unknown" {
			t.Errorf("find_request %s after the failed commit: %+v %v, want unknown", rid, found, err)
		}
	}
	// The similar-tickets lookup shows nothing the batch did.
	if made, renamed, updated := similar("made"), similar("renamed"), similar("updated"); len(made) != 0 || len(renamed) != 0 ||
		fmt.Sprint(updated) != "[inbox-2 updated]" {
		t.Errorf("similar tickets after the failed commit: made %v, renamed %v, updated %v; want none, none, inbox-2 as it was", made, renamed, updated)
	}

	// The disk recovered: each retry writes once, and the duplicates replay.
	replays := map[string]int{}
	made := map[string]map[string]bool{}
	for _, c := range calls {
		id, replayed, err := c.run()
		if err != nil {
			t.Fatalf("retry of %s after the disk recovered: %v", c.rid, err)
		}
		if replayed {
			replays[c.rid]++
		}
		if made[c.rid] == nil {
			made[c.rid] = map[string]bool{}
		}
		made[c.rid][id] = true
	}
	want := map[string]int{"same": 3, "n1": 1}
	if fmt.Sprint(replays) != fmt.Sprint(want) {
		t.Errorf("replays after recovery %v, want %v (every other retry the first write)", replays, want)
	}
	for rid, ids := range made {
		if len(ids) != 1 {
			t.Errorf("%s answered %v, want one id", rid, ids)
		}
	}
	list, err := a.ListTickets(ai, board.ListTicketsInput{Workspace: "inbox", Limit: 100})
	if err != nil || len(list.Tickets) != 5 {
		t.Fatalf("tickets after recovery: %d (%v), want 5: two seeds, same, d1, d2", len(list.Tickets), err)
	}
	if made, renamed := similar("made"), similar("renamed"); len(made) != 3 || fmt.Sprint(renamed) != "[inbox-2 renamed]" {
		t.Errorf("similar tickets after recovery: made %v, renamed %v; want the three creates and inbox-2 renamed", made, renamed)
	}
	d, err := a.GetTicket(ai, board.TicketIDInput{ID: "inbox-1"})
	if err != nil || len(d.Notes) != 1 || d.Ticket.Version != 2 {
		t.Errorf("inbox-1 after recovery: %d notes, version %d (%v), want 1 note, version 2", len(d.Notes), d.Ticket.Version, err)
	}
	u, err := a.GetTicket(ai, board.TicketIDInput{ID: "inbox-2"})
	if err != nil || u.Ticket.Title != title || u.Ticket.Version != 2 {
		t.Errorf("inbox-2 after recovery: %q version %d (%v), want %q version 2", u.Ticket.Title, u.Ticket.Version, err, title)
	}
}

func newService(t *testing.T, st storetest.Store) *board.Service {
	t.Helper()
	svc, err := board.NewService(board.Config{Store: st, BaseURL: "https://board.test"})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}
