package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// registerTaskTools adds the import and the task tools: what clients
// without the tasks extension (claude.ai, Claude Code today) use to start
// long work and follow it. Clients with the extension get the same import
// as a task (tasksext.go) and use tasks/get and tasks/cancel instead.
func registerTaskTools(s *mcp.Server, svc *board.Service, who PrincipalFunc) {
	add(s, who, &mcp.Tool{
		Name: "import_tickets",
		Description: "Create many tickets (1-10000) in one workspace as one durable task; each row becomes a candidate ticket, in order. " +
			"Small imports finish within the call (status completed). Larger ones answer at once with status working and a task_id: " +
			"follow them with get_task (or find_request with the same request_id), every few seconds, until the status is completed, failed or cancelled; " +
			"cancel_task stops one. Each row is imported exactly once, even when the import is retried, resumed or re-run." + writeNote,
		Annotations: idempotentWrite("Import tickets"),
	}, svc.ImportTickets)

	add(s, who, &mcp.Tool{
		Name:        "get_task",
		Description: "Read a task by task_id (import_tickets returns it): status (working, completed, failed, cancelled), a status message, progress (rows done of total), and once it ended its result or error. Poll it every poll_interval_ms while the status is working.",
		Annotations: readOnly("Get task"),
	}, svc.GetTask)

	add(s, who, &mcp.Tool{
		Name: "list_tasks",
		Description: "List the tasks still running that you may follow, oldest first: your own imports; " +
			"for a person, also those of the agents acting for them (their API tokens and connected apps); for an admin, everyone's. " +
			"Use it to find a task_id to follow with get_task or stop with cancel_task.",
		Annotations: readOnly("List running tasks"),
	}, func(ctx context.Context, _ struct{}) (board.TaskList, error) {
		return svc.ListTasks(ctx)
	})

	add(s, who, &mcp.Tool{
		Name:        "cancel_task",
		Description: "Cancel a running task by task_id. It stops between chunks; what it imported before stays, and its status message says how much. Cancelling a task that already ended changes nothing.",
		Annotations: &mcp.ToolAnnotations{Title: "Cancel task", IdempotentHint: true, DestructiveHint: boolPtr(false), OpenWorldHint: boolPtr(false)},
	}, func(ctx context.Context, in board.TaskIDInput) (board.TaskView, error) {
		return svc.CancelTask(ctx, in)
	})
}
