package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
)

// The task routes: imports as durable tasks (POST
// /workspaces/{slug}/imports), following them (GET /tasks/{id}) and
// cancelling them (POST /tasks/{id}/cancel), on the same use cases as MCP's
// import_tickets, get_task and cancel_task. Every exchange is validated
// against the served OpenAPI document by the harness.

// absentTask is a well-formed task id that names no task.
const absentTask = "00000000-0000-4000-8000-000000000000"

// importBody is the body of an import of n rows titled prefix 0..n-1.
func importBody(prefix string, n int) map[string]any {
	rows := make([]map[string]any, n)
	for i := range rows {
		rows[i] = map[string]any{"title": fmt.Sprintf("%s %d", prefix, i), "tags": []string{"imported"}}
	}
	return map[string]any{"tickets": rows}
}

// importTickets posts an import and checks what every accepted import
// answers: 202 with the task, Location naming it, Retry-After exactly while
// it is working.
func (e *env) importTickets(token, workspace, key string, body any) (board.ImportResult, answer) {
	e.t.Helper()
	a := e.ok(call{method: "POST", path: "/api/v1/workspaces/" + workspace + "/imports", token: token, key: key, body: body}, http.StatusAccepted)
	r := decodeAs[board.ImportResult](e.t, a)
	if r.TaskID == "" || a.header.Get("Location") != "/api/v1/tasks/"+r.TaskID {
		e.t.Fatalf("import %s: task %q, Location %q", key, r.TaskID, a.header.Get("Location"))
	}
	if working := !r.Status.Terminal(); working != (a.header.Get("Retry-After") != "") {
		e.t.Fatalf("import %s: status %s with Retry-After %q", key, r.Status, a.header.Get("Retry-After"))
	}
	if r.Replayed != (a.header.Get("Idempotent-Replayed") == "true") {
		e.t.Fatalf("import %s: replayed %v, Idempotent-Replayed %q", key, r.Replayed, a.header.Get("Idempotent-Replayed"))
	}
	return r, a
}

// followTask polls GET /tasks/{id} as a client should, every
// poll_interval_ms the task suggests, until it ends; past within it fails.
func (e *env) followTask(token, id string, within time.Duration) board.TaskView {
	e.t.Helper()
	deadline := time.Now().Add(within)
	for polls := 1; ; polls++ {
		a := e.ok(call{method: "GET", path: "/api/v1/tasks/" + id, token: token}, http.StatusOK)
		v := decodeAs[board.TaskView](e.t, a)
		if v.Status.Terminal() {
			if a.header.Get("Retry-After") != "" {
				e.t.Errorf("task %s ended %s but says Retry-After %q", id, v.Status, a.header.Get("Retry-After"))
			}
			e.t.Logf("task %s %s after %d polls: %s", id, v.Status, polls, v.StatusMessage)
			return v
		}
		if a.header.Get("Retry-After") == "" {
			e.t.Fatalf("task %s is %s without Retry-After", id, v.Status)
		}
		if time.Now().After(deadline) {
			logs := e.logs.String()
			e.t.Fatalf("task %s still %s (%d of %d rows) after %s; the server's log ends:\n%s", id, v.Status, v.Progress.Done, v.Progress.Total, within, logs[max(0, len(logs)-3000):])
		}
		<-time.After(time.Duration(v.PollIntervalMs) * time.Millisecond)
	}
}

// taskOptions: a local runner behind the API, as under make run, with the
// default inline threshold (board.DefaultInlineImportRows) and a short
// poll interval for the tests that follow tasks.
var taskOptions = envOptions{runner: true, pollInterval: 20 * time.Millisecond}

// largeImport is an import over the inline threshold on backend: several
// chunks past the default threshold, except on moto, whose transactions
// cost time in proportion to everything it holds (a 24-row chunk took 12 s
// with 1 000 items in the table, docs/dynamodb.md): there the threshold is
// lowered so that a few chunks' worth of rows still goes to the runner.
func largeImport(backend string) (envOptions, int) {
	if backend == "moto" {
		o := taskOptions
		o.inlineRows = 10
		return o, 3 * o.inlineRows
	}
	return taskOptions, 3*board.DefaultInlineImportRows + 50
}

// A large import goes to the runner: 202 working at once, then GET
// /tasks/{id} reaches completed with each row imported once; the same key
// replays the task, GET /requests/{key} includes it. A small import ends
// inside the request. Cancelling an ended task changes nothing.
func TestImportTaskRoutes(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		opts, rows := largeImport(backend)
		e := newEnv(t, backend, opts)
		alice := e.tokens["alice"]
		started, startedAnswer := e.importTickets(alice, "inbox", "imp-big", importBody("big", rows))
		if started.Replayed || started.Progress.Total != rows || started.Workspace != "inbox" {
			t.Fatalf("the import answered %+v", started)
		}
		if started.Status != board.TaskWorking || startedAnswer.status != http.StatusAccepted || startedAnswer.header.Get("Retry-After") == "" {
			t.Fatalf("a %d-row import answered %d %s (Retry-After %q), want 202 working with Retry-After: the runner imports it",
				rows, startedAnswer.status, started.Status, startedAnswer.header.Get("Retry-After"))
		}
		done := e.followTask(alice, started.TaskID, 2*time.Minute)
		if done.Status != board.TaskCompleted || done.Imported != rows || done.Progress.Done != rows || done.Tool != board.ToolImportTickets ||
			done.RequestID != "imp-big" || len(done.Result) == 0 {
			t.Fatalf("the import ended as %+v", done)
		}
		if n := e.ticketCount("inbox"); n != rows {
			t.Fatalf("the store holds %d tickets, want %d", n, rows)
		}
		// The same key: the same task, as it stands now.
		again, _ := e.importTickets(alice, "inbox", "imp-big", importBody("big", rows))
		if !again.Replayed || again.TaskID != started.TaskID || again.Status != board.TaskCompleted || again.Imported != rows {
			t.Fatalf("the retry answered %+v", again)
		}
		look := decodeAs[board.RequestLookup](t, e.ok(call{method: "GET", path: "/api/v1/requests/imp-big", token: alice}, 200))
		if look.Status != "done" || look.Tool != board.ToolImportTickets || look.Task == nil || look.Task.TaskID != started.TaskID || look.Task.Status != board.TaskCompleted {
			t.Fatalf("GET /requests/imp-big = %+v", look)
		}
		if n := e.ticketCount("inbox"); n != rows {
			t.Fatalf("after the retry the store holds %d tickets, want %d", n, rows)
		}

		// A small import ends inside the request.
		small, _ := e.importTickets(alice, "inbox", "imp-small", importBody("small", 3))
		if small.Status != board.TaskCompleted || small.Imported != 3 {
			t.Fatalf("a 3-row import answered %+v", small)
		}
		// Cancelling an ended task answers how it ended, and records the key.
		c := call{method: "POST", path: "/api/v1/tasks/" + small.TaskID + "/cancel", token: alice, key: "cancel-small"}
		first := e.ok(c, 200)
		cr := decodeAs[board.CancelTaskResult](t, first)
		if cr.Replayed || cr.Task.Status != board.TaskCompleted || cr.Task.Imported != 3 || first.header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("cancelling a completed task: %s", first.body)
		}
		replay := e.ok(c, 200)
		rr := decodeAs[board.CancelTaskResult](t, replay)
		if replay.header.Get("Idempotent-Replayed") != "true" || !rr.Replayed || rr.Task.Status != board.TaskCompleted {
			t.Fatalf("the cancellation's retry: %v %s", replay.header, replay.body)
		}
		rr.Replayed = false
		if canonical(t, mustJSON(t, rr)) != canonical(t, first.body) {
			t.Fatalf("the replay\n%s\nis not the first answer\n%s", replay.body, first.body)
		}
		if l := decodeAs[board.RequestLookup](t, e.ok(call{method: "GET", path: "/api/v1/requests/cancel-small", token: alice}, 200)); l.Status != "done" || l.Tool != board.ToolCancelTask {
			t.Fatalf("GET /requests/cancel-small = %+v", l)
		}
		if n := e.ticketCount("inbox"); n != rows+3 {
			t.Fatalf("the store holds %d tickets, want %d", n, rows+3)
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// chunkGate holds the chunk worker after its first chunk committed, until
// the test releases it: a cancel lands exactly while the import runs.
type chunkGate struct {
	storetest.Store
	once      sync.Once
	committed chan board.Task
	release   chan struct{}
}

func (g *chunkGate) ImportChunk(ctx context.Context, tx board.ChunkTx) (board.Task, error) {
	t, err := g.Store.ImportChunk(ctx, tx)
	if err == nil {
		g.once.Do(func() {
			g.committed <- t
			<-g.release
		})
	}
	return t, err
}

// Cancel while running: the task is cancelled at once, the chunk in flight
// finishing afterwards does not revive it, the rows imported before stay
// (the store holds exactly as many tickets as the task says) and nothing
// more is imported. A second cancellation answers cancelled again.
func TestCancelRunningImport(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		gate := &chunkGate{committed: make(chan board.Task, 1), release: make(chan struct{})}
		opts := taskOptions
		opts.wrap = func(s storetest.Store) storetest.Store { gate.Store = s; return gate }
		e := newEnv(t, backend, opts)
		claude := e.tokens["claude"]
		const rows = 1200
		started, _ := e.importTickets(claude, "inbox", "imp-cancel", importBody("cancel", rows))
		if started.Status != board.TaskWorking {
			t.Fatalf("the import answered %+v, want working (its first chunk is held)", started)
		}
		var first board.Task
		select {
		case first = <-gate.committed:
		case <-time.After(time.Minute):
			t.Fatal("the runner committed no chunk within a minute")
		}
		a := e.ok(call{method: "POST", path: "/api/v1/tasks/" + started.TaskID + "/cancel", token: claude, key: "cancel-1"}, 200)
		cancelled := decodeAs[board.CancelTaskResult](t, a).Task
		if cancelled.Status != board.TaskCancelled || cancelled.Imported != first.Imported || a.header.Get("Retry-After") != "" {
			t.Fatalf("the cancel answered %s (the first chunk imported %d)", a.body, first.Imported)
		}
		close(gate.release)
		// Close waits for the run to end: whatever it does after the
		// cancel has happened when it returns.
		for _, r := range e.runners {
			r.Close()
		}
		view := decodeAs[board.TaskView](t, e.ok(call{method: "GET", path: "/api/v1/tasks/" + started.TaskID, token: claude}, 200))
		if view.Status != board.TaskCancelled || view.Imported != first.Imported || view.Imported == 0 || view.Imported >= rows {
			t.Fatalf("after the run ended the task is %+v (first chunk: %d rows)", view, first.Imported)
		}
		if want := fmt.Sprintf("the %d tickets imported before the cancellation stay", view.Imported); !strings.Contains(view.StatusMessage, want) {
			t.Errorf("status message %q, want it to say %q", view.StatusMessage, want)
		}
		if n := e.ticketCount("inbox"); n != view.Imported {
			t.Fatalf("the store holds %d tickets, the task says %d", n, view.Imported)
		}
		// Idempotent: another cancellation, and a retry of the first.
		again := decodeAs[board.CancelTaskResult](t, e.ok(call{method: "POST", path: "/api/v1/tasks/" + started.TaskID + "/cancel", token: claude, key: "cancel-2"}, 200))
		if again.Replayed || again.Task.Status != board.TaskCancelled || again.Task.Imported != view.Imported {
			t.Fatalf("the second cancel answered %+v", again)
		}
		retry := e.ok(call{method: "POST", path: "/api/v1/tasks/" + started.TaskID + "/cancel", token: claude, key: "cancel-1"}, 200)
		if retry.header.Get("Idempotent-Replayed") != "true" || decodeAs[board.CancelTaskResult](t, retry).Task.Status != board.TaskCancelled {
			t.Fatalf("the retry of the first cancel: %v %s", retry.header, retry.body)
		}
		// The import's own key answers the cancelled task, and imports no more.
		replayed, _ := e.importTickets(claude, "inbox", "imp-cancel", importBody("cancel", rows))
		if !replayed.Replayed || replayed.Status != board.TaskCancelled || replayed.Imported != view.Imported {
			t.Fatalf("the import's retry answered %+v", replayed)
		}
		if n := e.ticketCount("inbox"); n != view.Imported {
			t.Fatalf("after the retries the store holds %d tickets, the task says %d", n, view.Imported)
		}
	})
}

// 20 identical import POSTs with one key, sent together to one server,
// start one task: every answer is 202 with that task, one started it and
// the others replay (a duplicate that arrives while the first call is
// still creating the task waits for it rather than answering 409); the
// store ends with each row once. One instance orders the writes (see
// TestIdenticalPostsReplayTheFirst), so this is about identical retries
// replaying, not about a race between instances.
func TestIdenticalImportPostsStartOneTask(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		opts, rows := largeImport(backend)
		e := newEnv(t, backend, opts)
		claude := e.tokens["claude"]
		const n = 20
		body := importBody("race", rows)
		answers := make([]answer, n)
		gate := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-gate
				answers[i] = e.do(call{method: "POST", path: "/api/v1/workspaces/inbox/imports", token: claude, key: "imp-race", body: body})
			})
		}
		close(gate)
		wg.Wait()
		taskIDs := map[string]bool{}
		starts, replays := 0, 0
		for i, a := range answers {
			if a.status != http.StatusAccepted {
				t.Fatalf("POST %d: %d %s, want 202", i, a.status, a.body)
			}
			r := decodeAs[board.ImportResult](t, a)
			taskIDs[r.TaskID] = true
			if a.header.Get("Idempotent-Replayed") == "true" {
				replays++
			} else {
				starts++
			}
		}
		if len(taskIDs) != 1 || starts != 1 || replays != n-1 {
			t.Fatalf("%d tasks, %d starts, %d replays; want 1 task, 1 start, %d replays", len(taskIDs), starts, replays, n-1)
		}
		var id string
		for id = range taskIDs {
		}
		done := e.followTask(claude, id, 2*time.Minute)
		if done.Status != board.TaskCompleted || done.Imported != rows {
			t.Fatalf("the import ended as %+v", done)
		}
		if got := e.ticketCount("inbox"); got != rows {
			t.Fatalf("the store holds %d tickets, want %d", got, rows)
		}
	})
}

// One ledger for MCP and REST: an import over REST replays over MCP's
// import_tickets with the same request_id, and the other way round; MCP's
// get_task and GET /tasks/{id} answer the same task.
func TestImportKeyAcrossMCPAndREST(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, taskOptions)
		claude := e.tokens["claude"]
		cs := mcpSession(t, e.url, claude, modernVersion)
		rows := importBody("both", 4)["tickets"]

		viaREST, _ := e.importTickets(claude, "inbox", "imp-rest", map[string]any{"tickets": rows})
		raw, text := tool(t, cs, "import_tickets", map[string]any{"request_id": "imp-rest", "workspace": "inbox", "tickets": rows})
		if text != "" {
			t.Fatal(text)
		}
		var mcpReplay board.ImportResult
		json.Unmarshal(raw, &mcpReplay)
		if !mcpReplay.Replayed || mcpReplay.TaskID != viaREST.TaskID || mcpReplay.Imported != 4 {
			t.Fatalf("import_tickets with the REST key: %s, want a replay of task %s", raw, viaREST.TaskID)
		}

		raw, text = tool(t, cs, "import_tickets", map[string]any{"request_id": "imp-mcp", "workspace": "inbox", "tickets": rows})
		if text != "" {
			t.Fatal(text)
		}
		var viaMCP board.ImportResult
		json.Unmarshal(raw, &viaMCP)
		restReplay, _ := e.importTickets(claude, "inbox", "imp-mcp", map[string]any{"tickets": rows})
		if !restReplay.Replayed || restReplay.TaskID != viaMCP.TaskID {
			t.Fatalf("REST with the MCP request_id: %+v, want a replay of task %s", restReplay, viaMCP.TaskID)
		}
		// The key with other rows is refused on both surfaces, with one text.
		_, mcpText := tool(t, cs, "import_tickets", map[string]any{"request_id": "imp-mcp", "workspace": "inbox", "tickets": importBody("other", 4)["tickets"]})
		p := e.refused(call{method: "POST", path: "/api/v1/workspaces/inbox/imports", token: claude, key: "imp-mcp", body: importBody("other", 4)}, 422, "request_id_reused")
		if p.Detail != mcpText || !strings.Contains(p.Detail, "differing fields: tickets") {
			t.Fatalf("REST says %q, MCP says %q", p.Detail, mcpText)
		}
		for _, id := range []string{viaREST.TaskID, viaMCP.TaskID} {
			got, text := tool(t, cs, "get_task", map[string]any{"task_id": id})
			if text != "" {
				t.Fatal(text)
			}
			if rest := e.ok(call{method: "GET", path: "/api/v1/tasks/" + id, token: claude}, 200); canonical(t, got) != canonical(t, rest.body) {
				t.Fatalf("get_task = %s, GET /tasks = %s", got, rest.body)
			}
		}
		for _, key := range []string{"imp-rest", "imp-mcp"} {
			found, _ := tool(t, cs, "find_request", map[string]any{"request_id": key})
			if rest := e.ok(call{method: "GET", path: "/api/v1/requests/" + key, token: claude}, 200); canonical(t, found) != canonical(t, rest.body) {
				t.Fatalf("find_request = %s, GET /requests = %s", found, rest.body)
			}
		}
		if n := e.ticketCount("inbox"); n != 8 {
			t.Fatalf("the store holds %d tickets, want 8 (two imports of 4)", n)
		}
	})
}

// Who sees a task: the principal whose request started it and the person
// its agent acts for (another person, the same agent for another person:
// 404 exactly as an id that never existed); an ai:* token loses a task whose
// workspace became hidden (404 as absent, its cancellation's key too) and is
// refused imports into a read_only workspace (403) and a hidden one (404 as
// absent); a person's token imports into and follows tasks in hidden
// workspaces.
func TestTaskVisibility(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, taskOptions)
		alice, claude, bob, botbob := e.tokens["alice"], e.tokens["claude"], e.tokens["bob"], e.tokens["botbob"]
		// absentAs checks that c answers exactly what the same call for a
		// task that does not exist answers.
		absentAs := func(token, id, method, key string) {
			t.Helper()
			suffix := ""
			if method == "POST" {
				suffix = "/cancel"
			}
			got := e.do(call{method: method, path: "/api/v1/tasks/" + id + suffix, token: token, key: key})
			want := e.do(call{method: method, path: "/api/v1/tasks/" + absentTask + suffix, token: token, key: key + "-absent"})
			g, w := got.problem(t), want.problem(t)
			if got.status != http.StatusNotFound || want.status != http.StatusNotFound || g.Code != w.Code || g.Title != w.Title ||
				strings.ReplaceAll(g.Detail, id, absentTask) != w.Detail {
				t.Fatalf("%s %s answered %d %+v; an absent task answers %d %+v", method, id, got.status, g, want.status, w)
			}
		}

		mine, _ := e.importTickets(claude, "inbox", "vis-1", importBody("vis", 2))
		own := e.ok(call{method: "GET", path: "/api/v1/tasks/" + mine.TaskID, token: claude}, 200)
		if hers := e.ok(call{method: "GET", path: "/api/v1/tasks/" + mine.TaskID, token: alice}, 200); canonical(t, hers.body) != canonical(t, own.body) {
			t.Fatalf("alice sees her agent's task as %s; the agent sees %s", hers.body, own.body)
		}
		for _, other := range []string{bob, botbob} {
			absentAs(other, mine.TaskID, "GET", "")
			absentAs(other, mine.TaskID, "POST", "vis-other")
		}
		// A cancellation recorded while the workspace was visible.
		e.ok(call{method: "POST", path: "/api/v1/tasks/" + mine.TaskID + "/cancel", token: claude, key: "vis-cancel"}, 200)

		// Read-only: 403 with MCP's words; nothing imported.
		p := e.refused(call{method: "POST", path: "/api/v1/workspaces/reference/imports", token: claude, key: "vis-ro", body: importBody("ro", 2)}, 403, "forbidden")
		if !strings.Contains(p.Detail, "workspace 'reference' is read-only for AI") {
			t.Errorf("403: %q", p.Detail)
		}
		// Hidden: as absent.
		hid := e.do(call{method: "POST", path: "/api/v1/workspaces/private/imports", token: claude, key: "vis-h", body: importBody("h", 2)})
		abs := e.do(call{method: "POST", path: "/api/v1/workspaces/nosuch/imports", token: claude, key: "vis-a", body: importBody("h", 2)})
		if h, a := hid.problem(t), abs.problem(t); hid.status != 404 || abs.status != 404 || h.Code != a.Code ||
			strings.ReplaceAll(h.Detail, "private", "nosuch") != a.Detail {
			t.Fatalf("an import into a hidden workspace: %d %+v; into none: %d %+v", hid.status, h, abs.status, a)
		}

		// The workspace becomes hidden: the agent's task is gone for it.
		e.ok(call{method: "PATCH", path: "/api/v1/workspaces/inbox", token: alice, key: "vis-hide", body: map[string]any{"ai_policy": "hidden"}}, 200)
		absentAs(claude, mine.TaskID, "GET", "")
		absentAs(claude, mine.TaskID, "POST", "vis-after")
		// The retry of the earlier cancellation: what a fresh call gets.
		again := e.do(call{method: "POST", path: "/api/v1/tasks/" + mine.TaskID + "/cancel", token: claude, key: "vis-cancel"})
		fresh := e.do(call{method: "POST", path: "/api/v1/tasks/" + mine.TaskID + "/cancel", token: claude, key: "vis-fresh"})
		if again.status != 404 || canonical(t, again.body) != canonical(t, fresh.body) {
			t.Fatalf("the cancellation's retry: %d %s; a fresh one: %d %s", again.status, again.body, fresh.status, fresh.body)
		}
		for _, key := range []string{"vis-1", "vis-cancel"} {
			if l := decodeAs[board.RequestLookup](t, e.ok(call{method: "GET", path: "/api/v1/requests/" + key, token: claude}, 200)); l.Status != "unknown" {
				t.Fatalf("GET /requests/%s in a hidden workspace: %+v", key, l)
			}
		}

		// A person imports into a hidden workspace and follows the task.
		theirs, _ := e.importTickets(alice, "private", "vis-p", importBody("p", 2))
		v := decodeAs[board.TaskView](t, e.ok(call{method: "GET", path: "/api/v1/tasks/" + theirs.TaskID, token: alice}, 200))
		if v.Status != board.TaskCompleted || v.Workspace != "private" || v.Imported != 2 {
			t.Fatalf("alice's task in private: %+v", v)
		}
		absentAs(claude, theirs.TaskID, "GET", "") // the agent acting for her did not start it
		if n := e.ticketCount("reference"); n != 0 {
			t.Fatalf("reference holds %d tickets after the refused import", n)
		}
	})
}

// The errors of the task routes: a key reused with other rows or for
// another task (422, naming what differs), an unknown task (404), a bad row
// (400 naming it; nothing imported), a body over the import bound (413).
func TestTaskRouteErrors(t *testing.T) {
	e := newEnv(t, "sqlite", taskOptions)
	alice := e.tokens["alice"]
	first, _ := e.importTickets(alice, "inbox", "err-1", importBody("one", 2))
	second, _ := e.importTickets(alice, "inbox", "err-2", importBody("two", 2))

	p := e.refused(call{method: "POST", path: "/api/v1/workspaces/inbox/imports", token: alice, key: "err-1", body: importBody("one", 3)}, 422, "request_id_reused")
	if !strings.Contains(p.Detail, "differing fields: tickets") {
		t.Errorf("422: %q", p.Detail)
	}
	p = e.refused(call{method: "POST", path: "/api/v1/workspaces/reference/imports", token: alice, key: "err-1", body: importBody("one", 2)}, 422, "request_id_reused")
	if !strings.Contains(p.Detail, "differing fields: workspace") {
		t.Errorf("422 for another workspace: %q", p.Detail)
	}
	e.ok(call{method: "POST", path: "/api/v1/tasks/" + first.TaskID + "/cancel", token: alice, key: "err-c"}, 200)
	p = e.refused(call{method: "POST", path: "/api/v1/tasks/" + second.TaskID + "/cancel", token: alice, key: "err-c"}, 422, "request_id_reused")
	if !strings.Contains(p.Detail, "differing fields: task_id") {
		t.Errorf("422 for another task: %q", p.Detail)
	}
	p = e.refused(call{method: "POST", path: "/api/v1/tasks/" + first.TaskID + "/cancel", token: alice, key: "err-1"}, 422, "request_id_reused")
	if !strings.Contains(p.Detail, "already used for import_tickets") {
		t.Errorf("422 for an import's key: %q", p.Detail)
	}
	p = e.refused(call{method: "POST", path: "/api/v1/workspaces/inbox/imports", token: alice, key: "err-c", body: importBody("one", 2)}, 422, "request_id_reused")
	if !strings.Contains(p.Detail, "already used for cancel_task") {
		t.Errorf("422 for a cancellation's key: %q", p.Detail)
	}

	for _, id := range []string{absentTask, "not-a-task-id-of-ours", strings.Repeat("a", 65)} {
		e.refused(call{method: "GET", path: "/api/v1/tasks/" + id, token: alice}, 404, "not_found")
		e.refused(call{method: "POST", path: "/api/v1/tasks/" + id + "/cancel", token: alice, key: "err-404"}, 404, "not_found")
	}
	// The refused cancellation recorded nothing: its key is free.
	if l := decodeAs[board.RequestLookup](t, e.ok(call{method: "GET", path: "/api/v1/requests/err-404", token: alice}, 200)); l.Status != "unknown" {
		t.Fatalf("a refused cancellation left a record: %+v", l)
	}

	bad := importBody("bad", 3)
	bad["tickets"].([]map[string]any)[1]["title"] = ""
	p = e.refused(call{method: "POST", path: "/api/v1/workspaces/inbox/imports", token: alice, key: "err-bad", body: bad}, 400, "invalid")
	if !strings.Contains(p.Detail, "tickets[1]") || !strings.Contains(p.Detail, "nothing was imported") {
		t.Errorf("400 for a bad row: %q", p.Detail)
	}
	p = e.refused(call{method: "POST", path: "/api/v1/workspaces/inbox/imports", token: alice, key: "err-empty", body: map[string]any{"tickets": []any{}}}, 400, "invalid")
	if !strings.Contains(p.Detail, "tickets is empty") {
		t.Errorf("400 for no rows: %q", p.Detail)
	}
	big := `{"tickets":[{"title":"x","body":"` + strings.Repeat("a", 4<<20) + `"}]}`
	p = e.refused(call{method: "POST", path: "/api/v1/workspaces/inbox/imports", token: alice, key: "err-big", body: big}, 413, "invalid")
	if !strings.Contains(p.Detail, "split the rows into several imports") {
		t.Errorf("413: %q", p.Detail)
	}
	if n := e.ticketCount("inbox"); n != 4 {
		t.Fatalf("inbox holds %d tickets after the refusals, want the 4 imported", n)
	}
}

// A person follows and stops their agents' work: while an import by bob's
// agent runs, GET /tasks lists it for bob (a member) and for alice (an
// admin), not for alice's agent; MCP's list_tasks and get_task show bob
// the same; that agent gets 404 for it as for an id
// that never existed; bob cancels it and it stays cancelled.
func TestPersonStopsTheirAgentsTask(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		gate := &chunkGate{committed: make(chan board.Task, 1), release: make(chan struct{})}
		opts := taskOptions
		opts.wrap = func(s storetest.Store) storetest.Store { gate.Store = s; return gate }
		e := newEnv(t, backend, opts)
		alice, claude, bob, botbob := e.tokens["alice"], e.tokens["claude"], e.tokens["bob"], e.tokens["botbob"]
		release := sync.OnceFunc(func() { close(gate.release) })
		defer release()
		started, _ := e.importTickets(botbob, "inbox", "agent-run", importBody("agent", 1200))
		select {
		case <-gate.committed:
		case <-time.After(time.Minute):
			t.Fatal("the runner committed no chunk within a minute")
		}
		listed := func(token string) []string {
			var ids []string
			for _, v := range decodeAs[board.TaskList](t, e.ok(call{method: "GET", path: "/api/v1/tasks", token: token}, 200)).Tasks {
				ids = append(ids, v.TaskID)
			}
			return ids
		}
		for who, token := range map[string]string{"botbob": botbob, "bob": bob, "alice (admin)": alice} {
			if got := listed(token); !slices.Equal(got, []string{started.TaskID}) {
				t.Errorf("GET /tasks as %s lists %v, want the running import %s", who, got, started.TaskID)
			}
		}
		if got := listed(claude); len(got) != 0 {
			t.Errorf("GET /tasks as alice's agent lists %v; another agent's work is not its to see", got)
		}
		got := e.do(call{method: "POST", path: "/api/v1/tasks/" + started.TaskID + "/cancel", token: claude, key: "not-mine"})
		want := e.do(call{method: "POST", path: "/api/v1/tasks/" + absentTask + "/cancel", token: claude, key: "not-mine-absent"})
		if got.status != 404 || strings.ReplaceAll(got.problem(t).Detail, started.TaskID, absentTask) != want.problem(t).Detail {
			t.Fatalf("another agent cancelling: %d %s", got.status, got.body)
		}
		v := decodeAs[board.TaskView](t, e.ok(call{method: "GET", path: "/api/v1/tasks/" + started.TaskID, token: bob}, 200))
		if v.Author != "ai:claude" || v.OnBehalfOf != "human:bob" || v.Status != board.TaskWorking {
			t.Fatalf("bob sees his agent's task as %+v", v)
		}
		// Over MCP, as himself: list_tasks and get_task answer what REST does.
		cs := mcpSession(t, e.url, bob, modernVersion)
		if got, text := tool(t, cs, "list_tasks", map[string]any{}); text != "" || canonical(t, got) != canonical(t, e.ok(call{method: "GET", path: "/api/v1/tasks", token: bob}, 200).body) {
			t.Fatalf("list_tasks as bob: %s %s", got, text)
		}
		if got, text := tool(t, cs, "get_task", map[string]any{"task_id": started.TaskID}); text != "" || !strings.Contains(string(got), `"on_behalf_of":"human:bob"`) {
			t.Fatalf("get_task as bob: %s %s", got, text)
		}
		cancelled := decodeAs[board.CancelTaskResult](t, e.ok(call{method: "POST", path: "/api/v1/tasks/" + started.TaskID + "/cancel", token: bob, key: "stop-my-agent"}, 200))
		if cancelled.Task.Status != board.TaskCancelled {
			t.Fatalf("bob's cancel answered %+v", cancelled)
		}
		release()
		for _, r := range e.runners {
			r.Close()
		}
		end := decodeAs[board.TaskView](t, e.ok(call{method: "GET", path: "/api/v1/tasks/" + started.TaskID, token: botbob}, 200))
		if end.Status != board.TaskCancelled || e.ticketCount("inbox") != end.Imported || end.Imported >= 1200 {
			t.Fatalf("after bob's cancel the agent sees %+v and the store holds %d tickets", end, e.ticketCount("inbox"))
		}
		if got := listed(bob); len(got) != 0 {
			t.Errorf("GET /tasks after the cancel still lists %v", got)
		}
	})
}
