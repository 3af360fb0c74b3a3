package rest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Statuses every authenticated route can answer besides its own.
var (
	readProblems  = []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusInternalServerError, http.StatusServiceUnavailable}
	writeProblems = []int{http.StatusConflict, http.StatusUnprocessableEntity}               // routes with an Idempotency-Key
	bodyProblems  = []int{http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType} // routes with a body
)

// routes is the API, in the order of its documentation.
func routes() []route {
	return []route{
		useCaseRoute("GET", "/workspaces", specInfo{id: "listWorkspaces", status: 200,
			summary:     "List workspaces",
			description: "The workspaces you can see, with ticket counts per status (as list_workspaces). Workspaces hidden from AI are absent for an agent's token; people see every workspace."},
			func(s *board.Service) func(context.Context, struct{}) (board.WorkspacesResult, error) {
				return func(ctx context.Context, _ struct{}) (board.WorkspacesResult, error) { return s.ListWorkspaces(ctx) }
			}, nil),
		useCaseRoute("POST", "/workspaces", specInfo{id: "createWorkspace", status: 201, body: true, write: true, location: true,
			problems:    []int{http.StatusForbidden},
			summary:     "Create a workspace (people)",
			description: "Creates an empty workspace with an ai_policy (default read_write). People only: an agent's token is refused."},
			func(s *board.Service) func(context.Context, board.CreateWorkspaceInput) (board.WorkspaceResult, error) {
				return s.CreateWorkspace
			}, func(_ *http.Request, h http.Header, out board.WorkspaceResult) {
				h.Set("Location", "/api/v1/workspaces/"+out.Workspace.Slug)
			}),
		useCaseRoute("GET", "/workspaces/{slug}", specInfo{id: "getWorkspaceSummary", status: 200, path: map[string]string{"slug": "workspace"},
			problems:    []int{http.StatusNotFound},
			summary:     "Workspace summary",
			description: "Counts per status, tickets waiting for AI, tickets due within 7 days and recent events (as get_workspace_summary)."},
			func(s *board.Service) func(context.Context, board.WorkspaceInput) (board.WorkspaceSummary, error) {
				return s.GetWorkspaceSummary
			}, nil),
		useCaseRoute("GET", "/events", specInfo{id: "listFeed", status: 200, query: true, link: true,
			summary: "Activity of every workspace you may see",
			description: fmt.Sprintf("What happened on the board, newest first, across every workspace you may see (as list_activity without a workspace): "+
				"for an agent's token, workspaces hidden from AI are left out, with the events written before they were hidden. "+
				"Filter by since (RFC 3339: only later events), by (the author) and kind. Pages with limit (1-%d, default %d) and cursor: pass next_cursor back (or follow the Link header, rel=\"next\"); null means the last page. "+
				"To ask what changed since you last looked, pass the first page's latest as since next time. A page can hold fewer events than limit and still have a next_cursor (partial: true) when a filter reached the most one call may examine.", board.MaxLimit, board.DefaultLimit)},
			func(s *board.Service) func(context.Context, board.FeedInput) (board.ActivityList, error) {
				return s.ListFeed
			}, activityLink),
		useCaseRoute("GET", "/workspaces/{slug}/events", specInfo{id: "listActivity", status: 200, path: map[string]string{"slug": "workspace"}, query: true, link: true,
			problems:    []int{http.StatusNotFound},
			summary:     "Activity of a workspace",
			description: "The workspace's events, newest first (as list_activity), with since, by, kind, limit and cursor as in GET /events."},
			func(s *board.Service) func(context.Context, board.ListActivityInput) (board.ActivityList, error) {
				return s.ListActivity
			}, activityLink),
		useCaseRoute("PATCH", "/workspaces/{slug}", specInfo{id: "updateWorkspace", status: 200, path: map[string]string{"slug": "workspace"}, body: true, write: true,
			problems:    []int{http.StatusForbidden, http.StatusNotFound},
			mediaTypes:  []string{"application/json", "application/merge-patch+json"},
			summary:     "Change a workspace's name or ai_policy (admins)",
			description: "Absent fields stay as they are. Admins only."},
			func(s *board.Service) func(context.Context, board.UpdateWorkspaceInput) (board.WorkspaceResult, error) {
				return s.UpdateWorkspace
			}, nil),
		useCaseRoute("GET", "/workspaces/{slug}/tickets", specInfo{id: "listTickets", status: 200, path: map[string]string{"slug": "workspace"}, query: true, link: true,
			problems:    []int{http.StatusNotFound},
			summary:     "List tickets",
			description: fmt.Sprintf("Newest first, filtered by status, owner, tag or text (as list_tickets). Pages with limit (1-%d, default %d) and cursor: pass next_cursor back (or follow the Link header, rel=\"next\"); null means the last page. A page can hold fewer tickets than limit and still have a next_cursor (partial: true) when a search reached the most one call may read, or the answer its size bound.", board.MaxLimit, board.DefaultLimit)},
			func(s *board.Service) func(context.Context, board.ListTicketsInput) (board.TicketList, error) {
				return s.ListTickets
			}, func(r *http.Request, h http.Header, out board.TicketList) {
				if out.NextCursor != nil {
					q := r.URL.Query()
					q.Set("cursor", *out.NextCursor)
					h.Set("Link", "<"+(&url.URL{Path: r.URL.Path, RawQuery: q.Encode()}).String()+`>; rel="next"`)
				}
			}),
		useCaseRoute("POST", "/workspaces/{slug}/tickets", specInfo{id: "createTicket", status: 201, path: map[string]string{"slug": "workspace"}, body: true, write: true,
			location: true, etag: true, problems: []int{http.StatusForbidden, http.StatusNotFound},
			summary: "Create a ticket",
			description: "A new ticket in status candidate (as create_ticket); created_by is the credential's author. Exactly once per Idempotency-Key. " +
				"The answer's similar lists up to 3 open tickets of the workspace whose titles share most words with the new one (found afresh for every answer; the ticket is created either way)."},
			func(s *board.Service) func(context.Context, board.CreateTicketInput) (board.CreatedTicket, error) {
				return s.CreateTicketFindingSimilar
			}, func(r *http.Request, h http.Header, out board.CreatedTicket) { ticketHeaders(r, h, out.TicketResult) }),
		useCaseRoute("POST", "/workspaces/{slug}/imports", specInfo{id: "importTickets", status: 202, path: map[string]string{"slug": "workspace"}, body: true, write: true,
			location: true, retryAfter: true, maxBody: MaxImportBodyBytes, problems: []int{http.StatusForbidden, http.StatusNotFound},
			summary: "Import tickets as a task",
			description: fmt.Sprintf("Creates 1-%[1]d tickets in the workspace, in row order, each row the fields of a new ticket, as one durable task (as import_tickets). "+
				"Exactly once per Idempotency-Key, and each row exactly once however the import is retried, resumed or re-run. "+
				"The answer is always 202 with the task (task_id, status, status_message, progress) and Location: /api/v1/tasks/{task_id}. "+
				"A small import (up to %[2]d rows) finishes within the request and answers status completed; a larger one answers working and continues in the background: "+
				"follow Location (GET, every Retry-After seconds) until the status is completed, failed or cancelled. "+
				"A retry with the same key answers the same task as it stands then (replayed: true), never a second import. "+
				"A bad row refuses the whole import (400, naming the row), and nothing is imported. "+
				"The body is at most 4 MiB (%[1]d rows of a title and about 300 characters of description); split larger imports, each part with its own key.",
				board.MaxImportRows, board.DefaultInlineImportRows)},
			func(s *board.Service) func(context.Context, board.ImportTicketsInput) (board.ImportResult, error) {
				return s.ImportTickets
			}, func(_ *http.Request, h http.Header, out board.ImportResult) { h.Set("Location", taskPath(out.TaskID)) }),
		useCaseRoute("GET", "/tickets/{id}", specInfo{id: "getTicket", status: 200, path: map[string]string{"id": "id"}, etag: true,
			problems:    []int{http.StatusNotFound},
			summary:     "Get a ticket",
			description: "A ticket with its newest notes and history events (up to 20 of each, oldest first; as get_ticket). When older ones exist, notes_cursor and history_cursor are set: pass them to /tickets/{id}/notes and /tickets/{id}/history. The ETag is the ticket's version, for If-Match on PATCH."},
			func(s *board.Service) func(context.Context, board.TicketIDInput) (board.TicketDetail, error) {
				return s.GetTicket
			}, func(_ *http.Request, h http.Header, out board.TicketDetail) { h.Set("ETag", etag(out.Ticket.Version)) }),
		useCaseRoute("GET", "/tickets/{id}/notes", specInfo{id: "listTicketNotes", status: 200, path: map[string]string{"id": "id"}, query: true,
			problems:    []int{http.StatusNotFound},
			summary:     "Page back through a ticket's notes",
			description: "Without cursor the newest page; with notes_cursor from the ticket or next_cursor from this route, the page before it (as list_ticket_notes). Each page is oldest first; next_cursor null means the first note is reached."},
			func(s *board.Service) func(context.Context, board.TicketActivityInput) (board.NoteList, error) {
				return s.ListTicketNotes
			}, nil),
		useCaseRoute("GET", "/tickets/{id}/history", specInfo{id: "listTicketHistory", status: 200, path: map[string]string{"id": "id"}, query: true,
			problems:    []int{http.StatusNotFound},
			summary:     "Page back through a ticket's history",
			description: "Without cursor the newest page; with history_cursor from the ticket or next_cursor from this route, the page before it (as list_ticket_history). Each page is oldest first; next_cursor null means the ticket's creation is reached."},
			func(s *board.Service) func(context.Context, board.TicketActivityInput) (board.HistoryList, error) {
				return s.ListTicketHistory
			}, nil),
		useCaseRoute("PATCH", "/tickets/{id}", specInfo{id: "updateTicket", status: 200, path: map[string]string{"id": "id"}, body: true, write: true,
			ifMatch: true, etag: true, problems: []int{http.StatusForbidden, http.StatusNotFound, http.StatusPreconditionFailed},
			mediaTypes:  []string{"application/json", "application/merge-patch+json"},
			summary:     "Change a ticket's fields",
			description: "Title, body, priority, owner, due, tags, links (as update_ticket; never status). Absent fields stay; null clears owner, due, body, tags or links. With If-Match (the ETag of GET) the change is made only while the ticket is at that version, else 412 and nothing is written. A retry with the same Idempotency-Key replays the first answer whatever If-Match says now."},
			func(s *board.Service) func(context.Context, board.UpdateTicketInput) (board.TicketResult, error) {
				return s.UpdateTicket
			}, ticketHeaders),
		useCaseRoute("POST", "/tickets/{id}/move", specInfo{id: "moveTicket", status: 200, path: map[string]string{"id": "id"}, body: true, write: true, etag: true,
			problems:    []int{http.StatusForbidden, http.StatusNotFound},
			summary:     "Move a ticket to another status",
			description: "With an optional reason kept in the history (as move_ticket). Moving to done sets completed_at; moving out of done clears it."},
			func(s *board.Service) func(context.Context, board.MoveTicketInput) (board.MoveResult, error) {
				return s.MoveTicket
			}, func(_ *http.Request, h http.Header, out board.MoveResult) { h.Set("ETag", etag(out.Ticket.Version)) }),
		useCaseRoute("POST", "/tickets/{id}/notes", specInfo{id: "addNote", status: 201, path: map[string]string{"id": "id"}, body: true, write: true,
			problems:    []int{http.StatusForbidden, http.StatusNotFound},
			summary:     "Add a note to a ticket",
			description: "A Markdown note (as add_note)."},
			func(s *board.Service) func(context.Context, board.AddNoteInput) (board.NoteResult, error) {
				return s.AddNote
			}, nil),
		useCaseRoute("GET", "/tasks", specInfo{id: "listTasks", status: 200,
			summary: "Running tasks you may follow",
			description: "The tasks still working, oldest first: an agent's own; for a person, their own and those of their agents (tokens and connected apps acting for them), so they can cancel them; for an admin, everyone's. " +
				"Tasks of workspaces hidden from AI are absent for an agent's token."},
			func(s *board.Service) func(context.Context, struct{}) (board.TaskList, error) {
				return func(ctx context.Context, _ struct{}) (board.TaskList, error) { return s.ListTasks(ctx) }
			}, nil),
		useCaseRoute("GET", "/tasks/{id}", specInfo{id: "getTask", status: 200, path: map[string]string{"id": "task_id"}, retryAfter: true,
			problems: []int{http.StatusNotFound},
			summary:  "Follow a task",
			description: "A task by its id (as get_task): status (working, completed, failed or cancelled), status_message, progress (rows done of total), " +
				"the tickets imported, and once it ended its result (the import's final answer) or error. While it is working, Retry-After says in seconds when to look again. " +
				"The caller whose request started the task sees it, and so do the person an agent acts for and admins; anyone else's task, an expired one and one of a workspace hidden from an agent are 404, as an id that never existed."},
			func(s *board.Service) func(context.Context, board.TaskIDInput) (board.TaskView, error) {
				return s.GetTask
			}, nil),
		useCaseRoute("POST", "/tasks/{id}/cancel", specInfo{id: "cancelTask", status: 200, path: map[string]string{"id": "task_id"}, write: true,
			problems: []int{http.StatusNotFound},
			summary:  "Cancel a task",
			description: "Marks a working task cancelled at once (as cancel_task); it stops between chunks, the tickets it imported stay, and its status_message says how many. " +
				"Cancelling a task that already ended changes nothing and answers how it ended. No body. " +
				"The Idempotency-Key is recorded like every write's: a retry with the same key answers the first answer again (Idempotent-Replayed: true; the task as the cancellation left it, which no longer changes), " +
				"the same key for another task is 422, and GET /requests/{key} finds it."},
			func(s *board.Service) func(context.Context, board.CancelTaskOnceInput) (board.CancelTaskResult, error) {
				return s.CancelTaskOnce
			}, nil),
		useCaseRoute("GET", "/requests/{key}", specInfo{id: "findRequest", status: 200, path: map[string]string{"key": "request_id"},
			summary:     "What became of an earlier write",
			description: "By its Idempotency-Key, or the request_id an MCP call or a web form used (one namespace per caller; as find_request): done (with the stored result), running, abandoned, or unknown. For an import it includes the task, with its current status and progress."},
			func(s *board.Service) func(context.Context, board.FindRequestInput) (board.RequestLookup, error) {
				return s.FindRequest
			}, nil),
	}
}

// ticketHeaders: the ticket's version as ETag and its URL as Location.
func ticketHeaders(r *http.Request, h http.Header, out board.TicketResult) {
	h.Set("ETag", etag(out.Ticket.Version))
	if r.Method == http.MethodPost {
		h.Set("Location", "/api/v1/tickets/"+out.Ticket.ID)
	}
}

// taskPath is where a task is followed.
func taskPath(id string) string { return Prefix + "/tasks/" + id }

// setRetryAfter says when to look at a working task again: its poll
// interval, in whole seconds (at least 1). An ended task needs no more
// looking.
func setRetryAfter(s *Server, h http.Header, out any) {
	var every time.Duration
	switch v := out.(type) {
	case board.ImportResult:
		if v.Status.Terminal() {
			return
		}
		every = s.svc.TaskPollInterval()
	case board.TaskView:
		if v.Status.Terminal() {
			return
		}
		every = time.Duration(v.PollIntervalMs) * time.Millisecond
	default:
		return
	}
	h.Set("Retry-After", strconv.Itoa(max(1, int((every+time.Second-1)/time.Second))))
}

// activityLink points the Link header at the feed's next page.
func activityLink(r *http.Request, h http.Header, out board.ActivityList) {
	if out.NextCursor != nil {
		q := r.URL.Query()
		q.Set("cursor", *out.NextCursor)
		h.Set("Link", "<"+(&url.URL{Path: r.URL.Path, RawQuery: q.Encode()}).String()+`>; rel="next"`)
	}
}
