package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// runningImport stores an import by ai:claude acting for handle that is
// still working, as a runner would leave it between chunks.
func (e *env) runningImport(handle, requestID string) string {
	e.t.Helper()
	now := e.clock.Now()
	owner := "human:" + handle
	task := board.Task{ID: "0b7e4c52-0000-4000-8000-" + strings.Repeat("0", 12-len(requestID)) + requestID, Tool: board.ToolImportTickets,
		Request: ledger.Key{Principal: "ai:claude|" + owner, RequestID: requestID}, Author: "ai:claude", OnBehalfOf: owner,
		Workspace: "inbox", Status: board.TaskWorking, Message: "importing: 0 of 2 rows done", Progress: board.Progress{Total: 2},
		CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour), PollInterval: time.Second}
	rows := []json.RawMessage{json.RawMessage(`{"title":"one"}`), json.RawMessage(`{"title":"two"}`)}
	if err := e.store.CreateTask(context.Background(), task, rows); err != nil {
		e.t.Fatal(err)
	}
	return task.ID
}

// Running imports: a person sees their agent's running import and cancels
// it from the board; an admin sees it too; another member neither sees nor
// cancels it (the same page as for an id that never existed).
func TestPeopleStopTheirAgentsImports(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("ada", board.RoleAdmin)
		e.addPerson("mia", board.RoleMember)
		e.addPerson("ned", board.RoleMember)
		ada, mia, ned := e.browser(), e.browser(), e.browser()
		ada.signIn("ada", testPassword)
		mia.signIn("mia", testPassword)
		ned.signIn("ned", testPassword)
		id := e.runningImport("mia", "42")

		for who, b := range map[string]*browser{"mia": mia, "ada (admin)": ada} {
			page := b.get("/tasks")
			if page.status != http.StatusOK || !strings.Contains(page.body, `action="/tasks/`+id+`/cancel"`) || !strings.Contains(page.body, "<code>ai:claude</code> for <code>human:mia</code>") {
				t.Fatalf("%s's running imports: %d\n%s", who, page.status, page.body)
			}
		}
		page := ned.get("/tasks")
		if page.status != http.StatusOK || strings.Contains(page.body, id) || !strings.Contains(page.body, "No import is running.") {
			t.Fatalf("ned sees mia's agent's import: %d\n%s", page.status, page.body)
		}
		refused := ned.post("/tasks/"+id+"/cancel", url.Values{})
		absent := ned.post("/tasks/0b7e4c52-0000-4000-8000-000000000999/cancel", url.Values{})
		if refused.status != http.StatusNotFound || absent.status != http.StatusNotFound {
			t.Fatalf("ned cancelling mia's agent's import: %d; an absent one: %d", refused.status, absent.status)
		}
		if task, _ := e.store.GetTask(context.Background(), id, e.clock.Now()); task.Status != board.TaskWorking {
			t.Fatalf("after ned's attempt the task is %s", task.Status)
		}
		if got := mia.post("/tasks/"+id+"/cancel", url.Values{}); got.status != http.StatusSeeOther || got.header.Get("Location") != "/tasks" {
			t.Fatalf("mia's cancel: %d\n%s", got.status, got.body)
		}
		task, err := e.store.GetTask(context.Background(), id, e.clock.Now())
		if err != nil || task.Status != board.TaskCancelled {
			t.Fatalf("after mia's cancel the task is %s (%v)", task.Status, err)
		}
	})
}
