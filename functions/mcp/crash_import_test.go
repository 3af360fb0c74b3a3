//go:build unix

package main

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

// The local runner survives a SIGKILL: an import of 10 000 rows, the server
// killed while the runner is between its first and last chunk, a restart on
// the same data; the restarted server resumes the task and completes it,
// with every row imported exactly once (checked over MCP and in the SQLite
// file itself).
const importCrashRows = 10000

func TestImportSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and SIGKILLs the server binary; skipped with -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	bin := buildServer(t)
	rows := make([]map[string]any, importCrashRows)
	for i := range rows {
		rows[i] = map[string]any{"title": fmt.Sprintf("crash import %05d", i)}
	}
	args := map[string]any{"request_id": "crash-import", "workspace": crashWorkspace, "tickets": rows}

	// The kill must land mid-import; on a machine fast enough to finish
	// first, try again on fresh data.
	for attempt := 1; ; attempt++ {
		data := t.TempDir()
		srv := startServer(ctx, t, bin, data)
		cs := connect(ctx, t, srv)
		res, err := callTool[board.ImportResult](ctx, cs, "import_tickets", args)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != board.TaskWorking {
			t.Fatalf("import of %d rows answered %s, want working (it runs in the background)", importCrashRows, res.Status)
		}
		var at board.TaskView
		for {
			at, err = callTool[board.TaskView](ctx, cs, "get_task", map[string]any{"task_id": res.TaskID})
			if err != nil {
				t.Fatal(err)
			}
			if at.Progress.Done > 0 || at.Status != board.TaskWorking {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		srv.kill()
		srv.waitExit(t)
		cs.Close()
		if at.Status != board.TaskWorking {
			if attempt == 3 {
				t.Fatalf("the import finished before the kill in 3 attempts (last: %s)", at.StatusMessage)
			}
			continue
		}
		t.Logf("attempt %d: killed at %d of %d rows (status message then: %q)", attempt, at.Progress.Done, importCrashRows, at.StatusMessage)

		// Restart on the same data: the runner resumes the task.
		srv = startServer(ctx, t, bin, data)
		cs = connect(ctx, t, srv)
		var end board.TaskView
		for deadline := time.Now().Add(90 * time.Second); ; {
			end, err = callTool[board.TaskView](ctx, cs, "get_task", map[string]any{"task_id": res.TaskID})
			if err != nil {
				t.Fatal(err)
			}
			if end.Status.Terminal() || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if end.Status != board.TaskCompleted || end.Progress.Done != importCrashRows {
			t.Fatalf("after the restart the task is %s at %d rows (%s)", end.Status, end.Progress.Done, end.StatusMessage)
		}
		// A retry of the call replays the completed import.
		again, err := callTool[board.ImportResult](ctx, cs, "import_tickets", args)
		if err != nil || !again.Replayed || again.Status != board.TaskCompleted || again.TaskID != res.TaskID {
			t.Fatalf("retry after completion = %+v, %v", again, err)
		}
		cs.Close()
		srv.stop(t)
		checkImportedOnce(t, data, res.TaskID)
		return
	}
}

// checkImportedOnce reads the SQLite file without the server: one ticket
// per row, each row's record naming its ticket, no title twice.
func checkImportedOnce(t *testing.T, data, taskID string) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(data, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	titles := map[string]int{}
	for before := int64(0); ; {
		page, err := st.ListTickets(ctx, board.TicketQuery{Workspace: crashWorkspace, Before: before, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range page.Tickets {
			titles[tk.Title]++
			before = tk.Number
		}
		if !page.More {
			break
		}
	}
	if len(titles) != importCrashRows {
		t.Errorf("%d distinct imported titles, want %d", len(titles), importCrashRows)
	}
	for title, n := range titles {
		if n != 1 {
			t.Errorf("%q imported %d times", title, n)
		}
	}
	key := ledger.Key{Principal: crashAuthor, RequestID: "crash-import"}
	seen := map[string]bool{}
	for i := range importCrashRows {
		rec, err := st.GetRequest(ctx, board.RowKey(key, i), time.Now())
		if err != nil {
			t.Fatalf("row %d has no record: %v", i, err)
		}
		if seen[string(rec.Result)] {
			t.Fatalf("row %d's record repeats another's: %s", i, rec.Result)
		}
		seen[string(rec.Result)] = true
	}
	w, err := st.GetWorkspace(ctx, crashWorkspace)
	if err != nil || w.Counts[board.StatusCandidate] != importCrashRows {
		t.Errorf("inbox counts %v, %v; want %d candidates", w.Counts, err, importCrashRows)
	}
}
