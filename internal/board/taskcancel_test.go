package board_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// The cancellation harness, for tasks: the five moments a cancel can land
// (none; before any work; between chunks; after the last chunk committed
// but before the task was marked completed; after completion). Gates in the
// store place each cancel exactly, without sleeps. The witness is the
// store's own records read outside the service: the workspace's ticket
// count and each row's record. The verdict per case: what the task says,
// what it imported, and that every imported row is there exactly once.

// gatedStore lets a test stop the chunk worker at a chosen moment.
type gatedStore struct {
	board.Store
	mu sync.Mutex
	// afterChunk, if set, runs after a chunk committed (with the task after it).
	afterChunk func(t board.Task)
	// beforeEnd, if set, runs before a task's final update.
	beforeEnd func(t board.Task)
}

func (g *gatedStore) ImportChunk(ctx context.Context, tx board.ChunkTx) (board.Task, error) {
	t, err := g.Store.ImportChunk(ctx, tx)
	g.mu.Lock()
	hook := g.afterChunk
	g.mu.Unlock()
	if err == nil && hook != nil {
		hook(t)
	}
	return t, err
}

func (g *gatedStore) UpdateTask(ctx context.Context, t board.Task, from []board.TaskStatus) error {
	g.mu.Lock()
	hook := g.beforeEnd
	g.mu.Unlock()
	if hook != nil && t.Status == board.TaskCompleted {
		hook(t)
	}
	return g.Store.UpdateTask(ctx, t, from)
}

// witness reads what the store holds for an import: tickets in the
// workspace and the rows that have a record, each naming a distinct ticket.
func witness(t *testing.T, st board.Store, requestID string, rows int) (tickets, imported int) {
	t.Helper()
	ctx := context.Background()
	w, err := st.GetWorkspace(ctx, "inbox")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	key := board.RequestKey(board.PrincipalFrom(as("ai:alice")), requestID)
	for i := range rows {
		rec, err := st.GetRequest(ctx, board.RowKey(key, i), time.Now())
		if errors.Is(err, board.ErrNotFound) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if seen[string(rec.Result)] {
			t.Fatalf("row %d's record repeats another row's: %s", i, rec.Result)
		}
		seen[string(rec.Result)] = true
		imported++
	}
	return w.Counts[board.StatusCandidate], imported
}

func TestTaskCancellationHarness(t *testing.T) {
	const rows = 1200 // three 500-row chunks on SQLite
	cases := []struct {
		name string
		// run drives the import and cancels at its moment; it returns the
		// number of rows that were committed when the cancel landed.
		run          func(t *testing.T, svc *board.Service, g *gatedStore, id string) int
		wantStatus   board.TaskStatus
		wantImported func(atCancel int) int
	}{
		{"baseline: no cancel", func(t *testing.T, svc *board.Service, g *gatedStore, id string) int {
			if _, err := svc.RunImport(context.Background(), id, 0); err != nil {
				t.Fatal(err)
			}
			return -1
		}, board.TaskCompleted, func(int) int { return rows }},

		{"cancel before any work", func(t *testing.T, svc *board.Service, g *gatedStore, id string) int {
			cancelTask(t, svc, id)
			if _, err := svc.RunImport(context.Background(), id, 0); err != nil {
				t.Fatal(err)
			}
			return 0
		}, board.TaskCancelled, func(int) int { return 0 }},

		{"cancel between chunks", func(t *testing.T, svc *board.Service, g *gatedStore, id string) int {
			var once sync.Once
			at := -1
			g.afterChunk = func(tk board.Task) {
				once.Do(func() { at = tk.Cursor; cancelTask(t, svc, id) }) // the next chunk must see it
			}
			if _, err := svc.RunImport(context.Background(), id, 0); err != nil {
				t.Fatal(err)
			}
			return at
		}, board.TaskCancelled, func(at int) int { return at }},

		{"cancel after the last chunk committed, before completion", func(t *testing.T, svc *board.Service, g *gatedStore, id string) int {
			var once sync.Once
			g.beforeEnd = func(board.Task) { once.Do(func() { cancelTask(t, svc, id) }) }
			if _, err := svc.RunImport(context.Background(), id, 0); err != nil {
				t.Fatal(err)
			}
			return rows
		}, board.TaskCancelled, func(int) int { return rows }},

		{"cancel after completion", func(t *testing.T, svc *board.Service, g *gatedStore, id string) int {
			if _, err := svc.RunImport(context.Background(), id, 0); err != nil {
				t.Fatal(err)
			}
			cancelTask(t, svc, id)
			return rows
		}, board.TaskCompleted, func(int) int { return rows }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := newGatedStore(t)
			svc, err := board.NewService(board.Config{Store: st, Runner: &recordingRunner{}})
			if err != nil {
				t.Fatal(err)
			}
			ctx := as("ai:alice")
			res, err := svc.ImportTickets(ctx, importInput("harness", rows))
			if err != nil || res.Status != board.TaskWorking {
				t.Fatalf("import = %+v, %v", res, err)
			}
			at := c.run(t, svc, st, res.TaskID)
			// A runner that comes back later changes nothing more.
			if _, err := svc.RunImport(context.Background(), res.TaskID, 0); err != nil {
				t.Fatal(err)
			}
			v, err := svc.GetTask(ctx, board.TaskIDInput{TaskID: res.TaskID})
			if err != nil {
				t.Fatal(err)
			}
			want := c.wantImported(at)
			tickets, imported := witness(t, st.Store, "harness", rows)
			t.Logf("verdict: task %s, %d imported (%q); the store holds %d tickets and %d row records", v.Status, v.Imported, v.StatusMessage, tickets, imported)
			if v.Status != c.wantStatus || v.Imported != want || tickets != want || imported != want {
				t.Fatalf("task %s with %d imported, store %d tickets / %d row records; want %s and %d everywhere", v.Status, v.Imported, tickets, imported, c.wantStatus, want)
			}
			if v.Status == board.TaskCancelled && !strings.Contains(v.StatusMessage, fmt.Sprintf("the %d tickets imported before the cancellation stay", want)) {
				t.Errorf("status message %q does not count the tickets that stay", v.StatusMessage)
			}
			// A retry of the import replays the task's end, whatever it was.
			again, err := svc.ImportTickets(ctx, importInput("harness", rows))
			if err != nil || again.TaskID != res.TaskID || again.Status != c.wantStatus || again.Imported != want {
				t.Errorf("retry = %+v, %v", again, err)
			}
			found, err := svc.FindRequest(ctx, board.FindRequestInput{RequestID: "harness"})
			if err != nil || found.Status != ledger.LookupDone || found.Task == nil || found.Task.Status != c.wantStatus {
				t.Errorf("find_request = %+v, %v", found, err)
			}
		})
	}
}

func cancelTask(t *testing.T, svc *board.Service, id string) {
	t.Helper()
	if _, err := svc.CancelTask(as("ai:alice"), board.TaskIDInput{TaskID: id}); err != nil {
		t.Fatalf("cancel: %v", err)
	}
}

func newGatedStore(t *testing.T) *gatedStore {
	_, st := newImportService(t, nil)
	return &gatedStore{Store: st}
}
