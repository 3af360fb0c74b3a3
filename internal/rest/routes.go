package rest

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/operations"
)

// Statuses every authenticated route can answer besides its own.
var (
	readProblems  = []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusInternalServerError, http.StatusServiceUnavailable}
	writeProblems = []int{http.StatusConflict, http.StatusUnprocessableEntity}               // routes with an Idempotency-Key
	bodyProblems  = []int{http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType} // routes with a body
)

// routes is the API, in the order of its documentation: a route for every
// operation that has one (internal/operations declares them, MCP tools
// included).
func routes() []route {
	var out []route
	for _, op := range operations.All() {
		if op.Route != nil {
			out = append(out, useCaseRoute(op, answerHeaders[op.Route.ID]))
		}
	}
	return out
}

// answerHeaders set what a route's result adds to its answer beyond the
// generic ones (Idempotent-Replayed, Retry-After, Link), by operationId.
var answerHeaders = map[string]func(r *http.Request, h http.Header, out any){
	"createWorkspace": func(_ *http.Request, h http.Header, out any) {
		h.Set("Location", "/api/v1/workspaces/"+out.(*board.WorkspaceResult).Workspace.Slug)
	},
	"createTicket": func(r *http.Request, h http.Header, out any) {
		ticketHeaders(r, h, out.(*board.CreatedTicket).TicketResult)
	},
	"importTickets": func(_ *http.Request, h http.Header, out any) {
		h.Set("Location", taskPath(out.(*board.ImportResult).TaskID))
	},
	"getTicket": func(_ *http.Request, h http.Header, out any) {
		h.Set("ETag", etag(out.(*board.TicketDetail).Ticket.Version))
	},
	"updateTicket": func(r *http.Request, h http.Header, out any) { ticketHeaders(r, h, *out.(*board.TicketResult)) },
	"moveTicket": func(_ *http.Request, h http.Header, out any) {
		h.Set("ETag", etag(out.(*board.MoveResult).Ticket.Version))
	},
	"claimTicket": func(_ *http.Request, h http.Header, out any) {
		if t := out.(*board.ClaimResult).Ticket; t != nil {
			h.Set("ETag", etag(t.Version))
		}
	},
	"releaseTicket": func(_ *http.Request, h http.Header, out any) {
		h.Set("ETag", etag(out.(*board.ReleaseResult).Ticket.Version))
	},
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
	case *board.ImportResult:
		if v.Status.Terminal() {
			return
		}
		every = s.svc.TaskPollInterval()
	case *board.TaskView:
		if v.Status.Terminal() {
			return
		}
		every = time.Duration(v.PollIntervalMs) * time.Millisecond
	default:
		return
	}
	h.Set("Retry-After", strconv.Itoa(max(1, int((every+time.Second-1)/time.Second))))
}

// nextLink points the Link header at a list's next page: the same query
// with the answer's next_cursor.
func nextLink(r *http.Request, h http.Header, out any) {
	p, ok := out.(interface{ NextPage() *string })
	if !ok {
		return
	}
	if next := p.NextPage(); next != nil {
		q := r.URL.Query()
		q.Set("cursor", *next)
		h.Set("Link", "<"+(&url.URL{Path: r.URL.Path, RawQuery: q.Encode()}).String()+`>; rel="next"`)
	}
}
