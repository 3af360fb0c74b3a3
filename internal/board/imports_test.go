package board_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

// recordingRunner records what the service asks of a task runner; tests
// drive RunImport themselves.
type recordingRunner struct {
	mu      sync.Mutex
	started []string
	stopped []string
}

func (r *recordingRunner) Reference(t board.Task) string { return "test:" + t.ID }
func (r *recordingRunner) Start(_ context.Context, t board.Task) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = append(r.started, t.ID)
	return nil
}
func (r *recordingRunner) Stop(_ context.Context, t board.Task) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = append(r.stopped, t.ID)
	return nil
}

func newImportService(t *testing.T, runner board.TaskRunner) (*board.Service, board.Store) {
	t.Helper()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := board.NewService(board.Config{Store: st, Runner: runner, BaseURL: "http://x"})
	if err != nil {
		t.Fatal(err)
	}
	return svc, st
}

func as(author string) context.Context {
	return board.WithPrincipal(context.Background(), board.Principal{Author: author, Source: board.SourceMCP})
}

func importInput(id string, n int) board.ImportTicketsInput {
	in := board.ImportTicketsInput{RequestID: id, Workspace: "inbox"}
	for i := range n {
		in.Tickets = append(in.Tickets, board.ImportRow{NewTicket: board.NewTicket{Title: fmt.Sprintf("row %d", i), Tags: []string{"imported"}}})
	}
	return in
}

func countTickets(t *testing.T, st board.Store, ws string) int {
	t.Helper()
	w, err := st.GetWorkspace(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	return w.Counts[board.StatusCandidate]
}

func TestImportSmallFinishesInline(t *testing.T) {
	svc, st := newImportService(t, &recordingRunner{})
	ctx := as("ai:alice")
	res, err := svc.ImportTickets(ctx, importInput("imp-small", 5))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != board.TaskCompleted || res.Imported != 5 || res.Progress != (board.Progress{Done: 5, Total: 5}) || res.Replayed || res.TaskID == "" {
		t.Fatalf("inline import = %+v, want completed 5 of 5 with a task id", res)
	}
	if n := countTickets(t, st, "inbox"); n != 5 {
		t.Fatalf("%d tickets, want 5", n)
	}
	d, err := svc.GetTicket(ctx, board.TicketIDInput{ID: "inbox-5"})
	if err != nil || d.Ticket.CreatedBy != "ai:alice" || d.Ticket.Title != "row 4" || d.History[0].RequestID != "imp-small#4" || d.History[0].Source != board.SourceTask {
		t.Fatalf("inbox-5 = %+v %v, want row 4 by ai:alice with event imp-small#4 from task", d.Ticket, err)
	}
	again, err := svc.ImportTickets(ctx, importInput("imp-small", 5))
	if err != nil || !again.Replayed || again.TaskID != res.TaskID || again.Status != board.TaskCompleted {
		t.Fatalf("retry = %+v, %v; want the first result replayed", again, err)
	}
	if n := countTickets(t, st, "inbox"); n != 5 {
		t.Fatalf("%d tickets after the retry, want 5", n)
	}
	found, err := svc.FindRequest(ctx, board.FindRequestInput{RequestID: "imp-small"})
	if err != nil || found.Status != ledger.LookupDone || found.Task == nil || found.Task.Status != board.TaskCompleted || found.Task.Progress.Done != 5 {
		t.Fatalf("find_request = %+v %v, want done with the completed task", found, err)
	}
	other := importInput("imp-small", 5)
	other.Tickets[2].Title = "changed"
	if _, err := svc.ImportTickets(ctx, other); board.ErrorCode(err) != board.CodeRequestReused || !strings.Contains(err.Error(), "tickets") {
		t.Fatalf("same request_id, other rows: %v, want a conflict naming tickets", err)
	}
}

func TestImportLargeRunsOnTheRunner(t *testing.T) {
	runner := &recordingRunner{}
	svc, st := newImportService(t, runner)
	ctx := as("ai:alice")
	res, err := svc.ImportTickets(ctx, importInput("imp-large", 250))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != board.TaskWorking || res.Progress != (board.Progress{Done: 0, Total: 250}) {
		t.Fatalf("large import answered %+v, want working 0 of 250", res)
	}
	if len(runner.started) != 1 || runner.started[0] != res.TaskID {
		t.Fatalf("runner started %v, want [%s]", runner.started, res.TaskID)
	}
	// The task is durable before the answer that names it.
	view, err := svc.GetTask(ctx, board.TaskIDInput{TaskID: res.TaskID})
	if err != nil || view.Status != board.TaskWorking || view.RequestID != "imp-large" || view.TTLMs != ledger.DefaultRetention.Milliseconds() {
		t.Fatalf("get_task = %+v, %v", view, err)
	}
	// A duplicate while it runs answers the same task and starts no other.
	dup, err := svc.ImportTickets(ctx, importInput("imp-large", 250))
	if err != nil || dup.TaskID != res.TaskID || !dup.Replayed || dup.Status != board.TaskWorking {
		t.Fatalf("duplicate = %+v, %v; want the same task, replayed", dup, err)
	}
	found, err := svc.FindRequest(ctx, board.FindRequestInput{RequestID: "imp-large"})
	if err != nil || found.Status != ledger.LookupRunning || found.Task == nil || found.Task.TaskID != res.TaskID {
		t.Fatalf("find_request while running = %+v, %v", found, err)
	}
	// The runner drives the chunk worker, here in two runs.
	mid, err := svc.RunImport(ctx, res.TaskID, 100)
	if err != nil || mid.Status != board.TaskWorking || mid.Cursor < 100 || mid.Cursor >= 250 {
		t.Fatalf("first run = cursor %d status %s, %v", mid.Cursor, mid.Status, err)
	}
	end, err := svc.RunImport(ctx, res.TaskID, 0)
	if err != nil || end.Status != board.TaskCompleted || end.Imported != 250 {
		t.Fatalf("second run = %+v, %v", end, err)
	}
	// A run after the end replays: nothing more is imported.
	if again, err := svc.RunImport(ctx, res.TaskID, 0); err != nil || again.Status != board.TaskCompleted {
		t.Fatalf("run after completion = %+v, %v", again, err)
	}
	if n := countTickets(t, st, "inbox"); n != 250 {
		t.Fatalf("%d tickets, want 250", n)
	}
	found, _ = svc.FindRequest(ctx, board.FindRequestInput{RequestID: "imp-large"})
	if found.Status != ledger.LookupDone || !strings.Contains(string(found.Result), `"completed"`) {
		t.Fatalf("find_request after the end = %+v", found)
	}
}

func TestImportCancel(t *testing.T) {
	runner := &recordingRunner{}
	svc, st := newImportService(t, runner)
	ctx := as("ai:alice")
	res, err := svc.ImportTickets(ctx, importInput("imp-cancel", 300))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.RunImport(ctx, res.TaskID, 100); err != nil {
		t.Fatal(err)
	}
	before := countTickets(t, st, "inbox")
	view, err := svc.CancelTask(ctx, board.TaskIDInput{TaskID: res.TaskID})
	if err != nil || view.Status != board.TaskCancelled {
		t.Fatalf("cancel = %+v, %v", view, err)
	}
	want := fmt.Sprintf("cancelled after %d of 300 rows; the %d tickets imported before the cancellation stay", before, before)
	if !strings.Contains(view.StatusMessage, want) {
		t.Fatalf("status message %q, want it to contain %q", view.StatusMessage, want)
	}
	if len(runner.stopped) != 1 {
		t.Fatalf("runner stopped %v, want the task", runner.stopped)
	}
	// The worker, still running somewhere, stops at its next chunk.
	after, err := svc.RunImport(ctx, res.TaskID, 0)
	if err != nil || after.Status != board.TaskCancelled {
		t.Fatalf("run after cancel = %+v, %v; want it to stay cancelled", after, err)
	}
	if n := countTickets(t, st, "inbox"); n != before {
		t.Fatalf("%d tickets after the cancelled run, want %d", n, before)
	}
	// A failure reported later does not change a cancelled task.
	if failed, err := svc.FailTask(ctx, res.TaskID, "late failure"); err != nil || failed.Status != board.TaskCancelled {
		t.Fatalf("fail after cancel = %+v, %v", failed, err)
	}
	again, err := svc.CancelTask(ctx, board.TaskIDInput{TaskID: res.TaskID})
	if err != nil || again.Status != board.TaskCancelled {
		t.Fatalf("second cancel = %+v, %v", again, err)
	}
	retry, err := svc.ImportTickets(ctx, importInput("imp-cancel", 300))
	if err != nil || retry.Status != board.TaskCancelled || !retry.Replayed || retry.Imported != before {
		t.Fatalf("retry after cancel = %+v, %v; want the cancelled result", retry, err)
	}
}

func TestImportFail(t *testing.T) {
	svc, _ := newImportService(t, &recordingRunner{})
	ctx := as("ai:alice")
	res, err := svc.ImportTickets(ctx, importInput("imp-fail", 200))
	if err != nil {
		t.Fatal(err)
	}
	failed, err := svc.FailTask(ctx, res.TaskID, "workspace 'inbox' became read-only")
	if err != nil || failed.Status != board.TaskFailed || failed.Error == nil || failed.Error.Code != -32603 {
		t.Fatalf("FailTask = %+v, %v", failed, err)
	}
	view, _ := svc.GetTask(ctx, board.TaskIDInput{TaskID: res.TaskID})
	if !strings.Contains(view.StatusMessage, "failed after 0 of 200 rows: workspace 'inbox' became read-only") {
		t.Fatalf("status message %q", view.StatusMessage)
	}
	if done, err := svc.RunImport(ctx, res.TaskID, 0); err != nil || done.Status != board.TaskFailed {
		t.Fatalf("run after failure = %+v, %v; want it to stay failed", done, err)
	}
}

func TestTasksOfAnotherPrincipalAreNotFound(t *testing.T) {
	svc, _ := newImportService(t, &recordingRunner{})
	res, err := svc.ImportTickets(as("ai:alice"), importInput("imp-private", 150))
	if err != nil {
		t.Fatal(err)
	}
	for _, ctx := range []context.Context{as("ai:bob"), as("human"), board.WithPrincipal(context.Background(), board.Principal{})} {
		_, err := svc.GetTask(ctx, board.TaskIDInput{TaskID: res.TaskID})
		if board.ErrorCode(err) != board.CodeNotFound {
			t.Errorf("%v reading alice's task: %v, want not found", board.PrincipalFrom(ctx), err)
		}
		if _, err := svc.CancelTask(ctx, board.TaskIDInput{TaskID: res.TaskID}); board.ErrorCode(err) != board.CodeNotFound {
			t.Errorf("%v cancelling alice's task: %v, want not found", board.PrincipalFrom(ctx), err)
		}
	}
	_, errForeign := svc.GetTask(as("ai:bob"), board.TaskIDInput{TaskID: res.TaskID})
	_, errMissing := svc.GetTask(as("ai:bob"), board.TaskIDInput{TaskID: "00000000-0000-4000-8000-000000000000"})
	if strings.Replace(errForeign.Error(), res.TaskID, "X", 1) != strings.Replace(errMissing.Error(), "00000000-0000-4000-8000-000000000000", "X", 1) {
		t.Errorf("a foreign task and a missing one answer differently: %q vs %q", errForeign, errMissing)
	}
	if v, err := svc.GetTask(as("ai:alice"), board.TaskIDInput{TaskID: res.TaskID}); err != nil || v.Status != board.TaskWorking {
		t.Errorf("alice reading her task: %+v, %v", v, err)
	}
}

func TestImportRefusesBadRowsAndWritesNothing(t *testing.T) {
	svc, st := newImportService(t, &recordingRunner{})
	ctx := as("ai:alice")
	in := importInput("imp-bad", 10)
	in.Tickets[7].Due = "tomorrow"
	_, err := svc.ImportTickets(ctx, in)
	if board.ErrorCode(err) != board.CodeInvalid || !strings.Contains(err.Error(), "tickets[7]") || !strings.Contains(err.Error(), "nothing was imported") {
		t.Fatalf("bad row: %v", err)
	}
	for _, bad := range []board.ImportTicketsInput{
		{RequestID: "imp-empty", Workspace: "inbox"},
		importInput("imp-huge", board.MaxImportRows+1),
	} {
		if _, err := svc.ImportTickets(ctx, bad); board.ErrorCode(err) != board.CodeInvalid {
			t.Errorf("%s: %v, want invalid", bad.RequestID, err)
		}
	}
	ro := importInput("imp-ro", 3)
	ro.Workspace = "reference"
	if _, err := svc.ImportTickets(ctx, ro); board.ErrorCode(err) != board.CodeForbidden {
		t.Errorf("import into a read-only workspace: %v", err)
	}
	hidden := importInput("imp-hidden", 3)
	hidden.Workspace = "private"
	if _, err := svc.ImportTickets(ctx, hidden); board.ErrorCode(err) != board.CodeNotFound {
		t.Errorf("import into a hidden workspace: %v", err)
	}
	for _, id := range []string{"imp-bad", "imp-ro", "imp-hidden"} {
		if f, _ := svc.FindRequest(ctx, board.FindRequestInput{RequestID: id}); f.Status != ledger.LookupUnknown {
			t.Errorf("%s left a record: %+v", id, f)
		}
	}
	if tasks, _ := st.UnfinishedTasks(ctx, time.Now()); len(tasks) != 0 {
		t.Errorf("refused imports left %d tasks", len(tasks))
	}
	if n := countTickets(t, st, "inbox"); n != 0 {
		t.Errorf("%d tickets", n)
	}
}

func TestTaskOfAWorkspaceHiddenSinceIsNotFound(t *testing.T) {
	svc, _ := newImportService(t, &recordingRunner{})
	ctx := as("ai:alice")
	res, err := svc.ImportTickets(ctx, importInput("imp-hide", 150))
	if err != nil {
		t.Fatal(err)
	}
	people := board.WithPrincipal(context.Background(), board.Principal{Author: "human", Role: board.RoleAdmin, Source: board.SourceWeb})
	if _, err := svc.SetWorkspacePolicy(people, board.SetWorkspacePolicyInput{Workspace: "inbox", AIPolicy: board.PolicyHidden}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.GetTask(ctx, board.TaskIDInput{TaskID: res.TaskID}); board.ErrorCode(err) != board.CodeNotFound {
		t.Errorf("get_task of an import into a workspace hidden since: %v, want not found", err)
	}
	if f, _ := svc.FindRequest(ctx, board.FindRequestInput{RequestID: "imp-hide"}); f.Status != ledger.LookupUnknown || f.Task != nil {
		t.Errorf("find_request of it = %+v, want unknown without the task", f)
	}
	if _, err := svc.ImportTickets(ctx, importInput("imp-hide", 150)); board.ErrorCode(err) != board.CodeNotFound {
		t.Errorf("a retry of it: %v, want the workspace not found", err)
	}
}

// An import runs longer than its claim's lease: find_request still says
// running while the task works, never abandoned.
func TestFindRequestOfALongImportIsRunning(t *testing.T) {
	st, err := sqliteStore(t)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	clock := func() time.Time { return now }
	svc, _ := board.NewService(board.Config{Store: st, Runner: &recordingRunner{}, Now: func() time.Time { return clock() }})
	ctx := as("ai:alice")
	if _, err := svc.ImportTickets(ctx, importInput("imp-long", 150)); err != nil {
		t.Fatal(err)
	}
	now = now.Add(10 * time.Minute) // far past the claim's lease
	f, err := svc.FindRequest(ctx, board.FindRequestInput{RequestID: "imp-long"})
	if err != nil || f.Status != ledger.LookupRunning || f.Task == nil || f.Task.Status != board.TaskWorking {
		t.Fatalf("find_request 10 minutes in = %+v, %v; want running with the working task", f, err)
	}
}

func sqliteStore(t *testing.T) (board.Store, error) {
	_, st := newImportService(t, nil)
	return st, nil
}
