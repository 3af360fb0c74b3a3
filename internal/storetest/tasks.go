package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// Durable tasks and the staged imports they run (board.TaskStore).

func taskTests() []contractTest {
	return []contractTest{
		{"a created task reads back whole, with its staged rows", testTaskCreateGet},
		{"a missing or expired task is ErrNotFound", testTaskMissingExpired},
		{"chunks import every row once, numbered in order, and advance the task", testChunkImportsAll},
		{"a chunk from a stale cursor is TaskChangedError and writes nothing", testChunkStaleCursor},
		{"a chunk of a cancelled task is TaskChangedError and writes nothing", testChunkCancelled},
		{"rows already imported under the same request are skipped, not imported again", testChunkSkipsImportedRows},
		{"a chunk into a missing or refusing workspace writes nothing", testChunkWorkspaceRefuses},
		{"UpdateTask is conditional on status and cursor", testUpdateTaskConditions},
		{"UnfinishedTasks lists active unexpired tasks, oldest first", testUnfinishedTasks},
		{"10 runners racing on one task import each row exactly once", testChunkRace},
	}
}

// newTask is a working import task of total rows under alice's requestID.
func (f *fixture) newTask(id, requestID string, total int, now time.Time) board.Task {
	return board.Task{
		ID: id, Tool: board.ToolImportTickets, Request: key(alice, requestID), Author: alice, Workspace: "inbox",
		Status: board.TaskWorking, Message: "importing", Progress: board.Progress{Total: total},
		CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(retention), PollInterval: 2 * time.Second,
		Execution: "local:" + id,
	}
}

func stagedRows(n int, prefix string) []json.RawMessage {
	rows := make([]json.RawMessage, n)
	for i := range rows {
		rows[i] = json.RawMessage(fmt.Sprintf(`{"title":"%s %d","priority":"normal","tags":["imported"]}`, prefix, i))
	}
	return rows
}

func (f *fixture) createTask(task board.Task, rows []json.RawMessage) {
	f.t.Helper()
	if err := f.s.CreateTask(f.ctx, task, rows); err != nil {
		f.t.Fatalf("CreateTask(%s): %v", task.ID, err)
	}
}

// chunkTx offers the task's rows from its cursor on, built as the board's
// chunk worker builds them.
func (f *fixture) chunkTx(task board.Task, rows []json.RawMessage, now time.Time) board.ChunkTx {
	var chunk []board.ChunkRow
	for i := task.Cursor; i < len(rows); i++ {
		var in board.NewTicket
		if err := json.Unmarshal(rows[i], &in); err != nil {
			f.t.Fatal(err)
		}
		rec := ledger.NewRecord(board.RowKey(task.Request, i), board.ToolImportTickets, nil, now, retention)
		rec.Fingerprint = ledger.Fingerprint(rows[i])
		chunk = append(chunk, board.ChunkRow{Index: i, Record: rec, Input: in})
	}
	return board.ChunkTx{
		Task:            task,
		Rows:            chunk,
		AllowedPolicies: []board.AIPolicy{board.PolicyReadWrite},
		Build: func(row board.ChunkRow, number int64) (board.CreatePlan, error) {
			t := newTicket(task.Workspace, number, task.Author, now, withTitle(row.Input.Title), withTags(row.Input.Tags...))
			ev := board.Event{ID: f.id("ev"), Workspace: t.Workspace, TicketID: t.ID, Type: board.EventTicketCreated,
				Author: task.Author, Source: board.SourceTask, RequestID: row.Record.Key.RequestID, At: now}
			res, _ := json.Marshal(board.ImportedRow{TaskID: task.ID, Row: row.Index, TicketID: t.ID})
			return board.CreatePlan{Ticket: t, Event: ev, Result: res}, nil
		},
		After: func(taken, imported int) board.Task {
			t := task
			t.Cursor += taken
			t.Progress.Done = t.Cursor
			t.Imported += imported
			t.UpdatedAt = now
			t.Message = fmt.Sprintf("%d of %d", t.Cursor, t.Progress.Total)
			return t
		},
	}
}

// runTask imports every remaining row of task, chunk after chunk, and
// returns the task at the end.
func (f *fixture) runTask(task board.Task, rows []json.RawMessage) board.Task {
	f.t.Helper()
	for task.Cursor < len(rows) {
		next, err := f.s.ImportChunk(f.ctx, f.chunkTx(task, rows, f.now()))
		if err != nil {
			f.t.Fatalf("ImportChunk at row %d: %v", task.Cursor, err)
		}
		if next.Cursor <= task.Cursor {
			f.t.Fatalf("ImportChunk took no row: cursor %d -> %d", task.Cursor, next.Cursor)
		}
		task = next
	}
	return task
}

func (f *fixture) task(id string, now time.Time) board.Task {
	f.t.Helper()
	got, err := f.s.GetTask(f.ctx, id, now)
	if err != nil {
		f.t.Fatalf("GetTask(%s): %v", id, err)
	}
	return got
}

func assertTask(t *testing.T, what string, want, got board.Task) {
	t.Helper()
	var d differ
	d.str("ID", want.ID, got.ID)
	d.str("Tool", want.Tool, got.Tool)
	d.same("Request", want.Request, got.Request)
	d.str("Author", want.Author, got.Author)
	d.str("Workspace", want.Workspace, got.Workspace)
	d.str("Status", string(want.Status), string(got.Status))
	d.str("Message", want.Message, got.Message)
	d.int("Cursor", int64(want.Cursor), int64(got.Cursor))
	d.same("Progress", want.Progress, got.Progress)
	d.int("Imported", int64(want.Imported), int64(got.Imported))
	d.bytes("Result", want.Result, got.Result)
	d.same("Error", want.Error, got.Error)
	d.str("Execution", want.Execution, got.Execution)
	d.time("CreatedAt", want.CreatedAt, got.CreatedAt)
	d.time("UpdatedAt", want.UpdatedAt, got.UpdatedAt)
	d.time("ExpiresAt", want.ExpiresAt, got.ExpiresAt)
	d.same("PollInterval", want.PollInterval, got.PollInterval)
	d.report(t, what)
}

func testTaskCreateGet(t *testing.T, f *fixture) {
	now := ms(1_234)
	task := f.newTask("7f3c0b6e-0000-4000-8000-000000000001", "imp", 5, now)
	rows := stagedRows(5, "row")
	rows[3] = json.RawMessage(`{"title":"ünïcode ✓ and \"quotes\"","body":"` + runes("β", 3000) + `","tags":["a","b"]}`)
	f.createTask(task, rows)
	assertTask(t, "GetTask after CreateTask", task, f.task(task.ID, now))

	got, err := f.s.StagedRows(f.ctx, task.ID, 0, 100)
	if err != nil {
		t.Fatalf("StagedRows: %v", err)
	}
	if len(got) != 5 {
		t.Fatalf("StagedRows(0, 100) returned %d rows, want 5", len(got))
	}
	for i := range rows {
		if !jsonEqual(rows[i], got[i]) {
			t.Errorf("staged row %d = %s, want %s", i, clipBytes(got[i]), clipBytes(rows[i]))
		}
	}
	page, err := f.s.StagedRows(f.ctx, task.ID, 3, 1)
	if err != nil || len(page) != 1 || !jsonEqual(page[0], rows[3]) {
		t.Errorf("StagedRows(3, 1) = %d rows, %v; want row 3", len(page), err)
	}
	tail, err := f.s.StagedRows(f.ctx, task.ID, 4, 10)
	if err != nil || len(tail) != 1 || !jsonEqual(tail[0], rows[4]) {
		t.Errorf("StagedRows(4, 10) = %d rows, %v; want the last row only", len(tail), err)
	}
}

// same records a difference when want and got are not deeply equal.
func (d *differ) same(field string, want, got any) {
	if !reflect.DeepEqual(want, got) {
		d.add(field, want, got)
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ca, _ := ledger.Canonical(x)
	cb, _ := ledger.Canonical(y)
	return string(ca) == string(cb)
}

func clipBytes(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

func testTaskMissingExpired(t *testing.T, f *fixture) {
	_, err := f.s.GetTask(f.ctx, "no-such-task", T0)
	assertIs(t, "GetTask of a missing id", err, board.ErrNotFound)
	task := f.newTask("expiring", "imp", 1, T0)
	task.ExpiresAt = ms(5_500)
	f.createTask(task, stagedRows(1, "r"))
	if _, err := f.s.GetTask(f.ctx, task.ID, ms(5_499)); err != nil {
		t.Errorf("GetTask 1ms before expiry: %v", err)
	}
	_, err = f.s.GetTask(f.ctx, task.ID, ms(5_500))
	assertIs(t, "GetTask at its expiry", err, board.ErrNotFound)
}

func testChunkImportsAll(t *testing.T, f *fixture) {
	f.create("inbox", "before") // the import continues the workspace's numbering
	const total = 250
	rows := stagedRows(total, "imported")
	task := f.newTask("task-all", "imp", total, T0)
	f.createTask(task, rows)
	end := f.runTask(f.task(task.ID, T0), rows)
	if end.Cursor != total || end.Progress.Done != total || end.Imported != total || end.Status != board.TaskWorking {
		t.Errorf("after every chunk: cursor %d, done %d, imported %d, status %s; want %d, %d, %d, working",
			end.Cursor, end.Progress.Done, end.Imported, end.Status, total, total, total)
	}
	assertTask(t, "GetTask after the chunks", end, f.task(task.ID, f.now()))
	w, err := f.s.GetWorkspace(f.ctx, "inbox")
	if err != nil {
		t.Fatal(err)
	}
	if w.Counts[board.StatusCandidate] != total+1 {
		t.Errorf("inbox counts %d candidates, want %d", w.Counts[board.StatusCandidate], total+1)
	}
	seen := map[string]bool{}
	for i := range total {
		rec := f.request(board.RowKey(task.Request, i), f.now())
		var row board.ImportedRow
		if err := json.Unmarshal(rec.Result, &row); err != nil || row.Row != i {
			t.Fatalf("row %d's record result %s: %v", i, rec.Result, err)
		}
		if want := fmt.Sprintf("inbox-%d", i+2); row.TicketID != want {
			t.Errorf("row %d became %s, want %s (rows numbered in order after inbox-1)", i, row.TicketID, want)
		}
		if seen[row.TicketID] {
			t.Errorf("ticket %s recorded twice", row.TicketID)
		}
		seen[row.TicketID] = true
	}
	d, err := f.s.ReadTicket(f.ctx, board.TicketRead{ID: fmt.Sprintf("inbox-%d", total+1), Notes: 10, Events: 10})
	if err != nil {
		t.Fatalf("the last imported ticket: %v", err)
	}
	if d.Ticket.Title != fmt.Sprintf("imported %d", total-1) || len(d.History) != 1 || d.History[0].RequestID != "imp#249" || d.History[0].Source != board.SourceTask {
		t.Errorf("last ticket %q with history %v; want title 'imported 249', one created event keyed imp#249 from source task", d.Ticket.Title, eventTypes(d.History))
	}
	// The imported tickets are found by their tag, as created ones are.
	tagged, err := f.s.ListTickets(f.ctx, board.TicketQuery{Workspace: "inbox", Tag: "imported", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(tagged.Tickets) != 100 || !tagged.More || tagged.Tickets[0].Number != total+1 {
		t.Errorf("listing by the rows' tag: %d tickets (more: %v), want the newest 100 of %d imported", len(tagged.Tickets), tagged.More, total)
	}
	// And by text search: every row's title is in the search index.
	for _, i := range []int{0, 137, total - 1} {
		found, err := f.s.ListTickets(f.ctx, board.TicketQuery{Workspace: "inbox", Query: fmt.Sprintf("imported %d", i), Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("inbox-%d", i+2)
		hit := false
		for _, tk := range found.Tickets {
			hit = hit || tk.ID == want
		}
		if !hit {
			t.Errorf("searching %q: %d tickets, none is %s", fmt.Sprintf("imported %d", i), len(found.Tickets), want)
		}
	}
	// The next create continues after the import.
	if plan := f.create("inbox", "after"); plan.Ticket.Number != total+2 {
		t.Errorf("create after the import got number %d, want %d", plan.Ticket.Number, total+2)
	}
}

func testChunkStaleCursor(t *testing.T, f *fixture) {
	rows := stagedRows(3, "r")
	task := f.newTask("task-stale", "imp", 3, T0)
	f.createTask(task, rows)
	first := f.task(task.ID, T0)
	moved := f.runTask(first, rows)
	// A second run that read the task before the first run's chunks (its
	// answer was lost) offers the same rows again.
	_, err := f.s.ImportChunk(f.ctx, f.chunkTx(first, rows, f.now()))
	var changed *board.TaskChangedError
	if !errors.As(err, &changed) {
		t.Fatalf("ImportChunk from cursor 0 after the rows were imported: %v, want *board.TaskChangedError", err)
	}
	assertTask(t, "the task TaskChangedError carries", moved, changed.Task)
	w, _ := f.s.GetWorkspace(f.ctx, "inbox")
	if w.Counts[board.StatusCandidate] != 3 {
		t.Errorf("inbox has %d tickets after the replayed chunk, want 3", w.Counts[board.StatusCandidate])
	}
}

func testChunkCancelled(t *testing.T, f *fixture) {
	rows := stagedRows(4, "r")
	task := f.newTask("task-cancel", "imp", 4, T0)
	f.createTask(task, rows)
	cancelled := f.task(task.ID, T0)
	cancelled.Status, cancelled.Message, cancelled.UpdatedAt = board.TaskCancelled, "cancelled after 0 of 4 rows", ms(10)
	if err := f.s.UpdateTask(f.ctx, cancelled, []board.TaskStatus{board.TaskWorking}); err != nil {
		t.Fatalf("UpdateTask to cancelled: %v", err)
	}
	_, err := f.s.ImportChunk(f.ctx, f.chunkTx(task, rows, f.now()))
	var changed *board.TaskChangedError
	if !errors.As(err, &changed) || changed.Task.Status != board.TaskCancelled {
		t.Fatalf("ImportChunk of a cancelled task: %v, want *board.TaskChangedError with the cancelled task", err)
	}
	assertTask(t, "the cancelled task after the refused chunk", cancelled, f.task(task.ID, ms(20)))
	w, _ := f.s.GetWorkspace(f.ctx, "inbox")
	if n := w.Counts[board.StatusCandidate]; n != 0 {
		t.Errorf("a refused chunk created %d tickets", n)
	}
	f.noRequest("row 0 after the refused chunk", board.RowKey(task.Request, 0), ms(20))
}

func testChunkSkipsImportedRows(t *testing.T, f *fixture) {
	rows := stagedRows(5, "r")
	first := f.newTask("task-first", "imp", 5, T0)
	f.createTask(first, rows)
	f.runTask(first, rows[:3]) // rows 0-2 imported by the first task
	// A second task of the same request (the first one's claim was taken
	// over) meets those rows again.
	second := f.newTask("task-second", "imp", 5, ms(1))
	f.createTask(second, rows)
	end := f.runTask(f.task(second.ID, ms(1)), rows)
	if end.Cursor != 5 || end.Imported != 2 {
		t.Errorf("second task: cursor %d, imported %d; want 5 and 2 (rows 0-2 were the first task's)", end.Cursor, end.Imported)
	}
	w, _ := f.s.GetWorkspace(f.ctx, "inbox")
	if n := w.Counts[board.StatusCandidate]; n != 5 {
		t.Errorf("inbox has %d tickets, want 5: one per row", n)
	}
	for i := range 5 {
		var row board.ImportedRow
		_ = json.Unmarshal(f.request(board.RowKey(first.Request, i), f.now()).Result, &row)
		wantTask := first.ID
		if i >= 3 {
			wantTask = second.ID
		}
		if row.TaskID != wantTask {
			t.Errorf("row %d imported by %q, want %q", i, row.TaskID, wantTask)
		}
	}
}

func testChunkWorkspaceRefuses(t *testing.T, f *fixture) {
	rows := stagedRows(2, "r")
	missing := f.newTask("task-missing-ws", "imp1", 2, T0)
	missing.Workspace = "nowhere"
	f.createTask(missing, rows)
	_, err := f.s.ImportChunk(f.ctx, f.chunkTx(missing, rows, f.now()))
	assertIs(t, "ImportChunk into a missing workspace", err, board.ErrNotFound)

	ro := f.newTask("task-readonly", "imp2", 2, T0)
	ro.Workspace = "reference"
	f.createTask(ro, rows)
	_, err = f.s.ImportChunk(f.ctx, f.chunkTx(ro, rows, f.now()))
	assertPolicyError(t, "ImportChunk into a read-only workspace", err, board.PolicyReadOnly)
	assertTask(t, "the refused task", ro, f.task(ro.ID, f.now()))
	f.noRequest("row 0 of the refused chunk", board.RowKey(ro.Request, 0), f.now())
	w, _ := f.s.GetWorkspace(f.ctx, "reference")
	if n := w.Counts[board.StatusCandidate]; n != 0 {
		t.Errorf("a refused chunk created %d tickets", n)
	}
}

func testUpdateTaskConditions(t *testing.T, f *fixture) {
	rows := stagedRows(3, "r")
	task := f.newTask("task-update", "imp", 3, T0)
	f.createTask(task, rows)
	active := []board.TaskStatus{board.TaskWorking, board.TaskInputRequired}

	stale := task
	stale.Cursor = 2
	stale.Status = board.TaskCompleted
	var changed *board.TaskChangedError
	if err := f.s.UpdateTask(f.ctx, stale, active); !errors.As(err, &changed) || changed.Task.Cursor != 0 {
		t.Errorf("UpdateTask with a cursor the task is not at: %v, want TaskChangedError at cursor 0", err)
	}
	done := task
	done.Status, done.Message, done.UpdatedAt = board.TaskFailed, "failed", ms(50)
	done.Error = &board.TaskError{Code: -32603, Message: "workspace gone"}
	done.Result = json.RawMessage(`{"status":"failed"}`)
	if err := f.s.UpdateTask(f.ctx, done, active); err != nil {
		t.Fatalf("UpdateTask working -> failed: %v", err)
	}
	assertTask(t, "the failed task", done, f.task(task.ID, ms(60)))
	again := done
	again.Status = board.TaskCompleted
	if err := f.s.UpdateTask(f.ctx, again, active); !errors.As(err, &changed) || changed.Task.Status != board.TaskFailed {
		t.Errorf("UpdateTask of a failed task: %v, want TaskChangedError (a failed task stays failed)", err)
	}
}

func testUnfinishedTasks(t *testing.T, f *fixture) {
	rows := stagedRows(1, "r")
	older := f.newTask("task-b-older", "imp1", 1, ms(100))
	newer := f.newTask("task-a-newer", "imp2", 1, ms(200))
	ended := f.newTask("task-ended", "imp3", 1, ms(50))
	expiring := f.newTask("task-expiring", "imp4", 1, ms(10))
	expiring.ExpiresAt = ms(1_000)
	for _, tk := range []board.Task{newer, older, ended, expiring} {
		f.createTask(tk, rows)
	}
	ended.Status = board.TaskCancelled
	if err := f.s.UpdateTask(f.ctx, ended, []board.TaskStatus{board.TaskWorking}); err != nil {
		t.Fatal(err)
	}
	got, err := f.s.UnfinishedTasks(f.ctx, ms(1_000))
	if err != nil {
		t.Fatalf("UnfinishedTasks: %v", err)
	}
	var ids []string
	for _, tk := range got {
		ids = append(ids, tk.ID)
	}
	if want := []string{older.ID, newer.ID}; !slices.Equal(ids, want) {
		t.Errorf("UnfinishedTasks = %v, want %v (active, unexpired, oldest first)", ids, want)
	}
}

func testChunkRace(t *testing.T, f *fixture) {
	const total, runners = 120, 10
	rows := stagedRows(total, "race")
	task := f.newTask("task-race", "imp", total, T0)
	f.createTask(task, rows)
	var committed atomic.Int64
	Together(runners, func(int) {
		for range 100 {
			current, err := f.s.GetTask(f.ctx, task.ID, f.now())
			if err != nil {
				t.Errorf("GetTask: %v", err)
				return
			}
			if current.Cursor >= total {
				return
			}
			next, err := f.s.ImportChunk(f.ctx, f.chunkTx(current, rows, f.now()))
			var changed *board.TaskChangedError
			switch {
			case errors.As(err, &changed):
				continue // another runner moved the task: read it again
			case err != nil:
				t.Errorf("ImportChunk: %v", err)
				return
			}
			committed.Add(int64(next.Imported - current.Imported))
		}
	})
	end := f.task(task.ID, f.now())
	if end.Cursor != total || end.Imported != total || committed.Load() != total {
		t.Errorf("after the race: cursor %d, imported %d, rows committed %d; want %d each", end.Cursor, end.Imported, committed.Load(), total)
	}
	w, _ := f.s.GetWorkspace(f.ctx, "inbox")
	if n := w.Counts[board.StatusCandidate]; n != total {
		t.Errorf("inbox has %d tickets, want %d", n, total)
	}
	page, err := f.s.ListTickets(f.ctx, board.TicketQuery{Workspace: "inbox", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]int{}
	for _, tk := range page.Tickets {
		titles[tk.Title]++
		if titles[tk.Title] > 1 {
			t.Errorf("row %q imported twice", tk.Title)
		}
	}
}
