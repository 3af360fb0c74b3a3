package operations

import (
	"context"
	"fmt"
	"net/http"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// MaxImportBodyBytes bounds the body of a REST import: room for the most
// rows one import takes (board.MaxImportRows) with a title and about 300
// characters of description each, and well inside what API Gateway hands
// a Lambda function (6 MB for the whole event, the body escaped in it).
// Larger imports are split, each part with its own Idempotency-Key.
const MaxImportBodyBytes = 4 << 20

// All is every operation, in the order of the REST API's documentation
// (MCP lists tools by name).
func All() []Operation {
	return []Operation{
		define(Operation{Kind: Read,
			Tool: &Tool{Name: "list_workspaces", Title: "List workspaces",
				Description: "List the workspaces you can see, with ticket counts per status. Start here to learn valid workspace slugs and which ones are read-only for AI."},
			Route: &Route{Method: "GET", Pattern: "/workspaces", ID: "listWorkspaces", Status: 200,
				Summary:     "List workspaces",
				Description: "The workspaces you can see, with ticket counts per status (as list_workspaces). Workspaces hidden from AI are absent for an agent's token; people see every workspace."}},
			func(s *board.Service) func(context.Context, struct{}) (board.WorkspacesResult, error) {
				return func(ctx context.Context, _ struct{}) (board.WorkspacesResult, error) { return s.ListWorkspaces(ctx) }
			}),
		define(Operation{Kind: Write,
			Route: &Route{Method: "POST", Pattern: "/workspaces", ID: "createWorkspace", Status: 201, Body: true, Location: true,
				Problems:    []int{http.StatusForbidden},
				Summary:     "Create a workspace (people)",
				Description: "Creates an empty workspace with an ai_policy (default read_write). People only: an agent's token is refused."}},
			func(s *board.Service) func(context.Context, board.CreateWorkspaceInput) (board.WorkspaceResult, error) {
				return s.CreateWorkspace
			}),
		define(Operation{Kind: Read,
			Tool: &Tool{Name: "get_workspace_summary", Title: "Workspace summary",
				Description: "Overview of one workspace: counts per status, tickets waiting for AI, tickets due within 7 days (overdue included), and recent events. Read this before writing in a workspace."},
			Route: &Route{Method: "GET", Pattern: "/workspaces/{slug}", ID: "getWorkspaceSummary", Status: 200, Path: map[string]string{"slug": "workspace"},
				Problems:    []int{http.StatusNotFound},
				Summary:     "Workspace summary",
				Description: "Counts per status, tickets waiting for AI, tickets due within 7 days and recent events (as get_workspace_summary)."}},
			func(s *board.Service) func(context.Context, board.WorkspaceInput) (board.WorkspaceSummary, error) {
				return s.GetWorkspaceSummary
			}),
		define(Operation{Kind: Read,
			Route: &Route{Method: "GET", Pattern: "/events", ID: "listFeed", Status: 200, Query: true, Link: true,
				Summary: "Activity of every workspace you may see",
				Description: fmt.Sprintf("What happened on the board, newest first, across every workspace you may see (as list_activity without a workspace): "+
					"for an agent's token, workspaces hidden from AI are left out, with the events written before they were hidden. "+
					"Filter by since (RFC 3339: only later events), by (the author) and kind. Pages with limit (1-%d, default %d) and cursor: pass next_cursor back (or follow the Link header, rel=\"next\"); null means the last page. "+
					"To ask what changed since you last looked, pass the first page's latest as since next time. A page can hold fewer events than limit and still have a next_cursor (partial: true) when a filter reached the most one call may examine.", board.MaxLimit, board.DefaultLimit)}},
			func(s *board.Service) func(context.Context, board.FeedInput) (board.ActivityList, error) {
				return s.ListFeed
			}),
		define(Operation{Kind: Read,
			Tool: &Tool{Name: "list_activity", Title: "List activity",
				Description: fmt.Sprintf("What changed on the board, newest first: a workspace's events (tickets created, updated, moved, notes added, workspace changes), or every workspace's you may see when workspace is omitted. Use it to ask \"what changed since I last looked\": pass since (RFC 3339) and you get only later events; save latest from the first page and pass it as since next time. Filter by author (by) or kind. Pages with limit (1-%d, default %d) and cursor: pass next_cursor back for older events; null means the last page. A page can hold fewer events than limit and still have a next_cursor (partial: true) when a filter reached the most one call may examine: keep calling until it is null.", board.MaxLimit, board.DefaultLimit)},
			Route: &Route{Method: "GET", Pattern: "/workspaces/{slug}/events", ID: "listActivity", Status: 200, Path: map[string]string{"slug": "workspace"}, Query: true, Link: true,
				Problems:    []int{http.StatusNotFound},
				Summary:     "Activity of a workspace",
				Description: "The workspace's events, newest first (as list_activity), with since, by, kind, limit and cursor as in GET /events."}},
			func(s *board.Service) func(context.Context, board.ListActivityInput) (board.ActivityList, error) {
				return s.ListActivity
			}),
		define(Operation{Kind: Write,
			Route: &Route{Method: "PATCH", Pattern: "/workspaces/{slug}", ID: "updateWorkspace", Status: 200, Path: map[string]string{"slug": "workspace"}, Body: true,
				Problems:    []int{http.StatusForbidden, http.StatusNotFound},
				MediaTypes:  []string{"application/json", "application/merge-patch+json"},
				Summary:     "Change a workspace's name or ai_policy (admins)",
				Description: "Absent fields stay as they are. Admins only."}},
			func(s *board.Service) func(context.Context, board.UpdateWorkspaceInput) (board.WorkspaceResult, error) {
				return s.UpdateWorkspace
			}),
		define(Operation{Kind: Read,
			Tool: &Tool{Name: "list_tickets", Title: "List tickets",
				Description: fmt.Sprintf("List tickets of a workspace, newest first, filtered by status, owner, tag or query. query is words, all required, each found case-insensitively as a whole word of the title, body or tags; its last word without a space after it is also a prefix (\"deplo\" finds deploy, deployment). With a query, tickets whose title holds every word come first, then the rest, newest first in each. Pages with limit (1-%d, default %d) and cursor: pass next_cursor back to get the next page; null means the last page. A page can hold fewer tickets than limit and still have a next_cursor (partial: true) when a search reached the most one call may read, or the answer its size bound: keep calling with next_cursor until it is null. Each listed ticket also comes as a resource_link content block to ticket://{id}, its Markdown view.", board.MaxLimit, board.DefaultLimit)},
			Route: &Route{Method: "GET", Pattern: "/workspaces/{slug}/tickets", ID: "listTickets", Status: 200, Path: map[string]string{"slug": "workspace"}, Query: true, Link: true,
				Problems:    []int{http.StatusNotFound},
				Summary:     "List tickets",
				Description: fmt.Sprintf("Newest first, filtered by status, owner, tag or text (as list_tickets). Pages with limit (1-%d, default %d) and cursor: pass next_cursor back (or follow the Link header, rel=\"next\"); null means the last page. A page can hold fewer tickets than limit and still have a next_cursor (partial: true) when a search reached the most one call may read, or the answer its size bound.", board.MaxLimit, board.DefaultLimit)}},
			func(s *board.Service) func(context.Context, board.ListTicketsInput) (board.TicketList, error) {
				return s.ListTickets
			}),
		define(Operation{Kind: Write,
			Tool: &Tool{Name: "create_ticket", Title: "Create ticket",
				Description: fmt.Sprintf("Create a ticket in a workspace. It starts in status candidate; created_by is you, decided by the server. Search first (list_tickets with query) so as not to file a duplicate. The answer's similar lists up to %d open tickets of the workspace whose titles share most words with the new one: if one is the same matter, add a note there (the new ticket is created either way).", board.MaxSimilar) + WriteNote},
			Route: &Route{Method: "POST", Pattern: "/workspaces/{slug}/tickets", ID: "createTicket", Status: 201, Path: map[string]string{"slug": "workspace"}, Body: true,
				Location: true, ETag: true, Problems: []int{http.StatusForbidden, http.StatusNotFound},
				Summary: "Create a ticket",
				Description: fmt.Sprintf("A new ticket in status candidate (as create_ticket); created_by is the credential's author. Exactly once per Idempotency-Key. "+
					"The answer's similar lists up to %d open tickets of the workspace whose titles share most words with the new one (found once, when the ticket is created, and answered again unchanged on a retry; the ticket is created either way).", board.MaxSimilar)}},
			func(s *board.Service) func(context.Context, board.CreateTicketInput) (board.CreatedTicket, error) {
				return s.CreateTicketFindingSimilar
			}),
		define(Operation{Kind: Write,
			Tool: &Tool{Name: "import_tickets", Title: "Import tickets",
				Description: "Create many tickets (1-10000) in one workspace as one durable task; each row becomes a candidate ticket, in order. " +
					"Small imports finish within the call (status completed). Larger ones answer at once with status working and a task_id: " +
					"follow them with get_task (or find_request with the same request_id), every few seconds, until the status is completed, failed or cancelled; " +
					"cancel_task stops one. Each row is imported exactly once, even when the import is retried, resumed or re-run." + WriteNote},
			Route: &Route{Method: "POST", Pattern: "/workspaces/{slug}/imports", ID: "importTickets", Status: 202, Path: map[string]string{"slug": "workspace"}, Body: true,
				Location: true, RetryAfter: true, MaxBody: MaxImportBodyBytes, Problems: []int{http.StatusForbidden, http.StatusNotFound},
				Summary: "Import tickets as a task",
				Description: fmt.Sprintf("Creates 1-%[1]d tickets in the workspace, in row order, each row the fields of a new ticket, as one durable task (as import_tickets). "+
					"Exactly once per Idempotency-Key, and each row exactly once however the import is retried, resumed or re-run. "+
					"The answer is always 202 with the task (task_id, status, status_message, progress) and Location: /api/v1/tasks/{task_id}. "+
					"A small import (up to %[2]d rows) finishes within the request and answers status completed; a larger one answers working and continues in the background: "+
					"follow Location (GET, every Retry-After seconds) until the status is completed, failed or cancelled. "+
					"A retry with the same key answers the same task as it stands then (replayed: true), never a second import. "+
					"A bad row refuses the whole import (400, naming the row), and nothing is imported. "+
					"The body is at most 4 MiB (%[1]d rows of a title and about 300 characters of description); split larger imports, each part with its own key.",
					board.MaxImportRows, board.DefaultInlineImportRows)}},
			func(s *board.Service) func(context.Context, board.ImportTicketsInput) (board.ImportResult, error) {
				return s.ImportTickets
			}),
		define(Operation{Kind: Read,
			Tool: &Tool{Name: "get_ticket", Title: "Get ticket",
				Description: "Read one ticket by id (e.g. inbox-21) with its newest notes and history events (up to 20 of each, oldest first). When older ones exist, notes_cursor and history_cursor are set: pass them to list_ticket_notes and list_ticket_history."},
			Route: &Route{Method: "GET", Pattern: "/tickets/{id}", ID: "getTicket", Status: 200, Path: map[string]string{"id": "id"}, ETag: true,
				Problems:    []int{http.StatusNotFound},
				Summary:     "Get a ticket",
				Description: "A ticket with its newest notes and history events (up to 20 of each, oldest first; as get_ticket). When older ones exist, notes_cursor and history_cursor are set: pass them to /tickets/{id}/notes and /tickets/{id}/history. The ETag is the ticket's version, for If-Match on PATCH."}},
			func(s *board.Service) func(context.Context, board.TicketIDInput) (board.TicketDetail, error) {
				return s.GetTicket
			}),
		define(Operation{Kind: Read,
			Tool: &Tool{Name: "list_ticket_notes", Title: "List ticket notes",
				Description: "Page back through a ticket's notes: without cursor the newest page, with notes_cursor from get_ticket or next_cursor from this tool the page before it. Each page is oldest first; next_cursor null means the first note is reached."},
			Route: &Route{Method: "GET", Pattern: "/tickets/{id}/notes", ID: "listTicketNotes", Status: 200, Path: map[string]string{"id": "id"}, Query: true,
				Problems:    []int{http.StatusNotFound},
				Summary:     "Page back through a ticket's notes",
				Description: "Without cursor the newest page; with notes_cursor from the ticket or next_cursor from this route, the page before it (as list_ticket_notes). Each page is oldest first; next_cursor null means the first note is reached."}},
			func(s *board.Service) func(context.Context, board.TicketActivityInput) (board.NoteList, error) {
				return s.ListTicketNotes
			}),
		define(Operation{Kind: Read,
			Tool: &Tool{Name: "list_ticket_history", Title: "List ticket history",
				Description: "Page back through a ticket's history events (created, updated, moved, notes added): without cursor the newest page, with history_cursor from get_ticket or next_cursor from this tool the page before it. Each page is oldest first; next_cursor null means the ticket's creation is reached."},
			Route: &Route{Method: "GET", Pattern: "/tickets/{id}/history", ID: "listTicketHistory", Status: 200, Path: map[string]string{"id": "id"}, Query: true,
				Problems:    []int{http.StatusNotFound},
				Summary:     "Page back through a ticket's history",
				Description: "Without cursor the newest page; with history_cursor from the ticket or next_cursor from this route, the page before it (as list_ticket_history). Each page is oldest first; next_cursor null means the ticket's creation is reached."}},
			func(s *board.Service) func(context.Context, board.TicketActivityInput) (board.HistoryList, error) {
				return s.ListTicketHistory
			}),
		define(Operation{Kind: Write,
			Tool: &Tool{Name: "update_ticket", Title: "Update ticket",
				Description: "Change a ticket's title, body, priority, owner, due date, tags or links. Only the fields you pass change; tags and links are replaced whole; null clears owner, due, body, tags or links (title and priority cannot be null). Status is not changed here: use move_ticket." + WriteNote},
			Route: &Route{Method: "PATCH", Pattern: "/tickets/{id}", ID: "updateTicket", Status: 200, Path: map[string]string{"id": "id"}, Body: true,
				IfMatch: true, ETag: true, Problems: []int{http.StatusForbidden, http.StatusNotFound, http.StatusPreconditionFailed},
				MediaTypes:  []string{"application/json", "application/merge-patch+json"},
				Summary:     "Change a ticket's fields",
				Description: "Title, body, priority, owner, due, tags, links (as update_ticket; never status). Absent fields stay; null clears owner, due, body, tags or links. With If-Match (the ETag of GET) the change is made only while the ticket is at that version, else 412 and nothing is written. A retry with the same Idempotency-Key replays the first answer whatever If-Match says now."}},
			func(s *board.Service) func(context.Context, board.UpdateTicketInput) (board.TicketResult, error) {
				return s.UpdateTicket
			}),
		define(Operation{Kind: Write,
			Tool: &Tool{Name: "move_ticket", Title: "Move ticket",
				Description: "Move a ticket to another status (candidate, doing, waiting_human, waiting_ai, done, hold), with an optional reason kept in the history. Moving to done sets completed_at; moving out of done clears it." + WriteNote},
			Route: &Route{Method: "POST", Pattern: "/tickets/{id}/move", ID: "moveTicket", Status: 200, Path: map[string]string{"id": "id"}, Body: true, ETag: true,
				Problems:    []int{http.StatusForbidden, http.StatusNotFound},
				Summary:     "Move a ticket to another status",
				Description: "With an optional reason kept in the history (as move_ticket). Moving to done sets completed_at; moving out of done clears it."}},
			func(s *board.Service) func(context.Context, board.MoveTicketInput) (board.MoveResult, error) {
				return s.MoveTicket
			}),
		define(Operation{Kind: Write,
			Tool: &Tool{Name: "add_note", Title: "Add note",
				Description: "Add a Markdown note to a ticket, e.g. progress, findings or a question for a person." + WriteNote},
			Route: &Route{Method: "POST", Pattern: "/tickets/{id}/notes", ID: "addNote", Status: 201, Path: map[string]string{"id": "id"}, Body: true,
				Problems:    []int{http.StatusForbidden, http.StatusNotFound},
				Summary:     "Add a note to a ticket",
				Description: "A Markdown note (as add_note)."}},
			func(s *board.Service) func(context.Context, board.AddNoteInput) (board.NoteResult, error) {
				return s.AddNote
			}),
		editNote(),
		redactNote(),
		define(Operation{Kind: Write,
			Tool: &Tool{Name: "claim_next", Title: "Claim next ticket",
				Description: "Take the next ticket ready for work in a workspace and claim it for you, atomically: the highest priority, then the oldest, unclaimed ticket in status candidate (default) or waiting_ai, optionally with a tag or owner. " +
					"Two agents asking at once never get the same ticket. The answer is {ticket, claim}; claim.token is yours alone: pass it as claim_token to update_ticket, move_ticket, claim_ticket (to renew before claim.until) and release_ticket. " +
					"Both are null when no ticket is ready. The work loop: claim_next → do the work → add_note with what you did → release_ticket with a status (e.g. done, or waiting_human with a reason)." + WriteNote},
			Route: &Route{Method: "POST", Pattern: "/workspaces/{slug}/claims", ID: "claimNext", Status: 200, Path: map[string]string{"slug": "workspace"}, Body: true,
				Problems: []int{http.StatusForbidden, http.StatusNotFound},
				Summary:  "Claim the next ready ticket",
				Description: fmt.Sprintf("Claims, atomically, the highest-priority then oldest unclaimed ticket in status candidate (default) or waiting_ai, with an optional tag or owner (as claim_next), for lease_seconds (%d-%d, default %d). "+
					"The answer holds the ticket and the claim with its token, or both null when none is ready (then nothing is written, and a retry with the same key asks again). "+
					"Exactly once per Idempotency-Key: a retry answers the same ticket and token.", board.MinLeaseSeconds, board.MaxLeaseSeconds, board.DefaultLeaseSeconds)}},
			func(s *board.Service) func(context.Context, board.ClaimNextInput) (board.ClaimResult, error) {
				return s.ClaimNext
			}),
		define(Operation{Kind: Write,
			Tool: &Tool{Name: "claim_ticket", Title: "Claim ticket",
				Description: fmt.Sprintf("Claim one ticket so that no other agent changes it while you work on it, for lease_seconds (%d-%d, default %d); the claim ends by itself at claim.until. "+
					"The answer's claim.token is yours alone: pass it as claim_token to update_ticket, move_ticket and release_ticket, and to claim_ticket again to renew the lease. "+
					"A ticket someone else holds is refused (conflict) with who holds it and until when: take another with claim_next, or add a note to ask them. To find work, prefer claim_next.",
					board.MinLeaseSeconds, board.MaxLeaseSeconds, board.DefaultLeaseSeconds) + WriteNote},
			Route: &Route{Method: "POST", Pattern: "/tickets/{id}/claim", ID: "claimTicket", Status: 200, Path: map[string]string{"id": "id"}, Body: true, ETag: true,
				Problems:    []int{http.StatusForbidden, http.StatusNotFound},
				Summary:     "Claim a ticket, or renew your claim",
				Description: "Claims the ticket for lease_seconds (as claim_ticket); with the claim_token of your live claim, renews it. A ticket someone else holds is 409, naming the holder and when the claim ends."}},
			func(s *board.Service) func(context.Context, board.ClaimTicketInput) (board.ClaimResult, error) {
				return s.ClaimTicket
			}),
		define(Operation{Kind: Write,
			Tool: &Tool{Name: "release_ticket", Title: "Release ticket",
				Description: "End your claim on a ticket (pass its claim_token), and move the ticket in the same write when you give status (done, waiting_human, ...) with an optional reason kept in the history. " +
					"Release when you finish or stop, so others can take the ticket; add_note first with what you did." + WriteNote},
			Route: &Route{Method: "POST", Pattern: "/tickets/{id}/release", ID: "releaseTicket", Status: 200, Path: map[string]string{"id": "id"}, Body: true, ETag: true,
				Problems:    []int{http.StatusForbidden, http.StatusNotFound},
				Summary:     "End a claim, optionally moving the ticket",
				Description: "Ends the claim (as release_ticket): the holder passes its claim_token; a person may end anyone's claim (breaking it, which the history records). With status, the ticket moves in the same write."}},
			func(s *board.Service) func(context.Context, board.ReleaseTicketInput) (board.ReleaseResult, error) {
				return s.ReleaseTicket
			}),
		relateTickets(),
		unrelateTickets(),
		define(Operation{Kind: Read,
			Tool: &Tool{Name: "list_tasks", Title: "List running tasks",
				Description: "List the tasks still running that you may follow, oldest first: your own imports; " +
					"for a person, also those of the agents acting for them (their API tokens and connected apps); for an admin, everyone's. " +
					"Use it to find a task_id to follow with get_task or stop with cancel_task."},
			Route: &Route{Method: "GET", Pattern: "/tasks", ID: "listTasks", Status: 200,
				Summary: "Running tasks you may follow",
				Description: "The tasks still working, oldest first: an agent's own; for a person, their own and those of their agents (tokens and connected apps acting for them), so they can cancel them; for an admin, everyone's. " +
					"Tasks of workspaces hidden from AI are absent for an agent's token."}},
			func(s *board.Service) func(context.Context, struct{}) (board.TaskList, error) {
				return func(ctx context.Context, _ struct{}) (board.TaskList, error) { return s.ListTasks(ctx) }
			}),
		define(Operation{Kind: Read,
			Tool: &Tool{Name: "get_task", Title: "Get task",
				Description: "Read a task by task_id (import_tickets returns it): status (working, completed, failed, cancelled), a status message, progress (rows done of total), and once it ended its result or error. Poll it every poll_interval_ms while the status is working."},
			Route: &Route{Method: "GET", Pattern: "/tasks/{id}", ID: "getTask", Status: 200, Path: map[string]string{"id": "task_id"}, RetryAfter: true,
				Problems: []int{http.StatusNotFound},
				Summary:  "Follow a task",
				Description: "A task by its id (as get_task): status (working, completed, failed or cancelled), status_message, progress (rows done of total), " +
					"the tickets imported, and once it ended its result (the import's final answer) or error. While it is working, Retry-After says in seconds when to look again. " +
					"The caller whose request started the task sees it, and so do the person an agent acts for and admins; anyone else's task, an expired one and one of a workspace hidden from an agent are 404, as an id that never existed."}},
			func(s *board.Service) func(context.Context, board.TaskIDInput) (board.TaskView, error) {
				return s.GetTask
			}),
		// Over MCP a cancellation needs no request_id (a second one changes
		// nothing); over REST it takes the Idempotency-Key every POST does,
		// recorded like a write's: two use cases, so two operations.
		define(Operation{Kind: Write,
			Tool: &Tool{Name: "cancel_task", Title: "Cancel task",
				Description: "Cancel a running task by task_id. It stops between chunks; what it imported before stays, and its status message says how much. Cancelling a task that already ended changes nothing."}},
			func(s *board.Service) func(context.Context, board.TaskIDInput) (board.TaskView, error) {
				return s.CancelTask
			}),
		define(Operation{Kind: Write,
			Route: &Route{Method: "POST", Pattern: "/tasks/{id}/cancel", ID: "cancelTask", Status: 200, Path: map[string]string{"id": "task_id"},
				Problems: []int{http.StatusNotFound},
				Summary:  "Cancel a task",
				Description: "Marks a working task cancelled at once (as cancel_task); it stops between chunks, the tickets it imported stay, and its status_message says how many. " +
					"Cancelling a task that already ended changes nothing and answers how it ended. No body. " +
					"The Idempotency-Key is recorded like every write's: a retry with the same key answers the first answer again (Idempotent-Replayed: true; the task as the cancellation left it, which no longer changes), " +
					"the same key for another task is 422, and GET /requests/{key} finds it."}},
			func(s *board.Service) func(context.Context, board.CancelTaskOnceInput) (board.CancelTaskResult, error) {
				return s.CancelTaskOnce
			}),
		define(Operation{Kind: Read,
			Tool: &Tool{Name: "list_inbox", Title: "List your inbox",
				Description: fmt.Sprintf("Your own inbox, newest first: what concerns you, each item with its reason. For an agent: where someone mentioned you (@ai:<your name>) and tickets made yours, for the person you act for; "+
					"for a person: mentions, tickets assigned to them, notes and moves on tickets they created or own, and tickets waiting_human that are theirs or no one's. "+
					"unread is counted up to %d (shown 99+). Pages with limit (1-%d, default %d) and cursor (next_cursor; null on the last page). "+
					"Read the ticket an item names with get_ticket, then mark_inbox_read.", board.UnreadCountCap, board.MaxLimit, board.DefaultLimit)},
			Route: &Route{Method: "GET", Pattern: "/inbox", ID: "listInbox", Status: 200, Query: true,
				Summary: "Your inbox",
				Description: fmt.Sprintf("The caller's own inbox, newest first (as list_inbox): mentions, tickets assigned, notes and moves on tickets they created or own, tickets waiting for a person that are theirs or no one's; "+
					"for an agent's token, mentions of that agent and tickets made its own, for the person it acts for, without workspaces hidden from AI. "+
					"unread counts unread items up to %d (unread_label 99+). Pages with limit (1-%d) and cursor (next_cursor).", board.UnreadCountCap, board.MaxLimit)}},
			func(s *board.Service) func(context.Context, board.ListInboxInput) (board.InboxList, error) {
				return s.ListInbox
			}),
		define(Operation{Kind: Write,
			Tool: &Tool{Name: "mark_inbox_read", Title: "Mark inbox items read",
				Description: fmt.Sprintf("Mark items of your own inbox read: ids (up to %d, from list_inbox) or all: true. Answers how many changed and the unread count left.", board.MaxMarkIDs) + WriteNote},
			Route: &Route{Method: "POST", Pattern: "/inbox/read", ID: "markInboxRead", Status: 200, Body: true,
				Summary:     "Mark inbox items read",
				Description: "Marks items of the caller's own inbox read (as mark_inbox_read): ids, or all: true. Exactly once per Idempotency-Key: a retry answers the first answer."}},
			func(s *board.Service) func(context.Context, board.MarkInboxReadInput) (board.MarkInboxReadResult, error) {
				return s.MarkInboxRead
			}),
		define(Operation{Kind: Read,
			Tool: &Tool{Name: "find_request", Title: "Find request",
				Description: "Find out what became of an earlier write of yours by its request_id: done (with the stored result), running, abandoned (stopped before finishing) or unknown (never arrived, or older than the retention window). Call this after an error or lost connection before retrying."},
			Route: &Route{Method: "GET", Pattern: "/requests/{key}", ID: "findRequest", Status: 200, Path: map[string]string{"key": "request_id"},
				Summary:     "What became of an earlier write",
				Description: "By its Idempotency-Key, or the request_id an MCP call or a web form used (one namespace per caller; as find_request): done (with the stored result), running, abandoned, or unknown. For an import it includes the task, with its current status and progress."}},
			func(s *board.Service) func(context.Context, board.FindRequestInput) (board.RequestLookup, error) {
				return s.FindRequest
			}),
	}
}
