package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// columnLimit is how many tickets a board column shows; a column with more
// links to the list of that status, which pages.
const columnLimit = 50

// home lists every workspace with its counts. People see them all, hidden
// ones included, each labelled with what AI may do there.
func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	s.showHome(w, r, http.StatusOK, "", freshForm("workspace"))
}

// showHome renders the workspaces page; form is the new-workspace form as
// it is to be shown.
func (s *Server) showHome(w http.ResponseWriter, r *http.Request, status int, errMsg string, form *formState) {
	res, err := s.cfg.Service.ListWorkspaces(r.Context())
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	s.render(w, r, status, "home", page{Title: "Workspaces", Error: errMsg, Data: homeData{Workspaces: res.Workspaces, New: form}})
}

type homeData struct {
	Workspaces []board.Workspace
	New        *formState // the new-workspace form
}

// filter is the board's filter and search form, read from the query.
type filter struct {
	Status board.Status
	Owner  string
	Tag    string
	Query  string
	// Ready keeps only tickets ready for work: open, every blocker done.
	Ready  bool
	Cursor string
}

func (f filter) any() bool {
	return f.Status != "" || f.Owner != "" || f.Tag != "" || f.Query != "" || f.Ready
}

// query is the filter as URL parameters, with status replaced.
func (f filter) with(status board.Status) string {
	v := url.Values{}
	if status != "" {
		v.Set("status", string(status))
	}
	if f.Owner != "" {
		v.Set("owner", f.Owner)
	}
	if f.Tag != "" {
		v.Set("tag", f.Tag)
	}
	if f.Query != "" {
		v.Set("q", f.Query)
	}
	if f.Ready {
		v.Set("ready", "1")
	}
	return v.Encode()
}

type column struct {
	Status  board.Status
	Tickets []board.Ticket
	More    string // URL of the rest, when there is more
}

type boardData struct {
	Workspace board.Workspace
	Filter    filter
	Filtered  bool
	// NoMatch: a filtered board where no column holds a ticket or a way
	// on: one message instead of a row of empty columns.
	NoMatch bool
	Columns []column
	Owners  ownerPicker
	Here    string // this page's URL, where forms return
	Live    string // the change marker the page was rendered at (live.go)
	// Blocked counts each shown card's open blockers, by ticket id (none
	// when absent).
	Blocked map[string]int
	// NewTicket is the new-ticket form: fresh, or refused with what was
	// typed.
	NewTicket *formState
}

func (s *Server) boardPage(w http.ResponseWriter, r *http.Request) {
	s.showBoard(w, r, r.PathValue("slug"), http.StatusOK, "", freshForm("new"))
}

// showBoard renders a workspace's board: a column per status, or one
// status with paging when the filter names one; form is the new-ticket
// form as it is to be shown.
func (s *Server) showBoard(w http.ResponseWriter, r *http.Request, slug string, status int, errMsg string, form *formState) {
	ctx := r.Context()
	q := r.URL.Query()
	f := filter{Status: board.Status(q.Get("status")), Owner: strings.TrimSpace(q.Get("owner")), Tag: strings.TrimSpace(q.Get("tag")),
		Query: strings.TrimSpace(q.Get("q")), Ready: q.Get("ready") != "", Cursor: q.Get("cursor")}
	live := liveMarker(func() (board.Changes, error) {
		return s.cfg.Service.WorkspaceChanges(ctx, board.WorkspaceInput{Workspace: slug})
	})
	sum, err := s.cfg.Service.GetWorkspaceSummary(ctx, board.WorkspaceInput{Workspace: slug})
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	d := boardData{Workspace: sum.Workspace, Filter: f, Filtered: f.any(), Here: "/w/" + slug, Live: live, NewTicket: form}
	if rest := withoutFlash(r.URL.Query()); rest != "" {
		d.Here += "?" + rest
	}
	statuses := board.Statuses
	limit := columnLimit
	if f.Status != "" {
		statuses = []board.Status{f.Status}
		limit = board.MaxLimit
	}
	for _, st := range statuses {
		in := board.ListTicketsInput{Workspace: slug, Status: st, Owner: f.Owner, Tag: f.Tag, Query: f.Query, Ready: f.Ready, Limit: limit}
		if f.Status != "" {
			in.Cursor = f.Cursor
		}
		list, err := s.cfg.Service.ListTickets(ctx, in)
		if err != nil {
			// A bad filter is the person's to fix: show the board empty
			// with the message rather than an error page.
			if board.ErrorCode(err) == board.CodeInvalid {
				errMsg, status = err.Error(), statusOf(err)
				d.Columns = nil
				break
			}
			s.errorPage(w, r, err)
			return
		}
		c := column{Status: st, Tickets: list.Tickets}
		if list.NextCursor != nil {
			if f.Status != "" {
				c.More = "/w/" + slug + "?" + f.with(st) + "&cursor=" + url.QueryEscape(*list.NextCursor)
			} else {
				c.More = "/w/" + slug + "?" + f.with(st)
			}
		}
		d.Columns = append(d.Columns, c)
	}
	d.NoMatch = d.Filtered && errMsg == "" && noTickets(d.Columns)
	var shown []board.Ticket
	for _, c := range d.Columns {
		shown = append(shown, c.Tickets...)
	}
	d.Owners = s.ownerChoices(r, authorsOf(shown, sum.RecentEvents))
	if d.Blocked, err = s.cfg.Service.OpenBlockerCounts(ctx, shown); err != nil {
		s.errorPage(w, r, err)
		return
	}
	s.render(w, r, status, "board", page{Title: sum.Workspace.Name, Error: errMsg, Data: d})
}

type ticketData struct {
	Detail board.TicketDetail
	Owners ownerPicker
	// Form is the form this page shows refused (edit, note), nil when
	// every form is fresh.
	Form *formState
	// Older pages of notes or history are shown instead of the newest
	// when the page is asked for them (?notes=<cursor>, ?history=<cursor>).
	OlderNotes, OlderHistory bool
	Live                     string // the change marker the page was rendered at (live.go)
	// Here is the page live.js fetches again on a change: this URL for a
	// GET, the ticket's page when a refused form rendered it.
	Here string
	// Choices are the tickets the relation form's picker offers.
	Choices []board.Ticket
	// RelationKinds are the kinds the relation form offers.
	RelationKinds []relationChoice
}

func (s *Server) ticketPage(w http.ResponseWriter, r *http.Request) {
	s.showTicket(w, r, r.PathValue("id"), http.StatusOK, "", nil)
}

// FormFor is the form named id ("edit", "move", "note") as the page shows
// it: the refused one, with what was typed, when it is that form; else
// fresh.
func (d ticketData) FormFor(id string) *formState {
	if d.Form != nil && d.Form.id == id {
		return d.Form
	}
	return freshForm(id)
}

// showTicket renders a ticket's page; refused, if set, is one of its forms
// as it was refused.
func (s *Server) showTicket(w http.ResponseWriter, r *http.Request, id string, status int, errMsg string, refused *formState) {
	live := liveMarker(func() (board.Changes, error) {
		return s.cfg.Service.TicketChanges(r.Context(), board.TicketIDInput{ID: id})
	})
	d, err := s.cfg.Service.GetTicket(r.Context(), board.TicketIDInput{ID: id})
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	authors := authorsOf([]board.Ticket{d.Ticket}, d.History)
	for _, n := range d.Notes {
		authors = append(authors, n.Author)
	}
	if sum, err := s.cfg.Service.GetWorkspaceSummary(r.Context(), board.WorkspaceInput{Workspace: d.Ticket.Workspace}); err == nil {
		authors = append(authors, authorsOf(nil, sum.RecentEvents)...)
	}
	td := ticketData{Detail: d, Owners: s.ownerChoices(r, authors), Form: refused, Live: live, Here: "/tickets/" + id,
		Choices: s.ticketChoices(r, d.Ticket), RelationKinds: relationChoices}
	if r.Method == http.MethodGet {
		td.Here = r.URL.RequestURI()
	}
	// get_ticket carries the newest notes and events; older ones come a
	// page at a time through the cursors it gives.
	if c := r.URL.Query().Get("notes"); c != "" {
		p, err := s.cfg.Service.ListTicketNotes(r.Context(), board.TicketActivityInput{ID: id, Cursor: c})
		if err != nil {
			s.errorPage(w, r, err)
			return
		}
		td.Detail.Notes, td.Detail.NotesCursor, td.OlderNotes = p.Notes, p.NextCursor, true
	}
	if c := r.URL.Query().Get("history"); c != "" {
		p, err := s.cfg.Service.ListTicketHistory(r.Context(), board.TicketActivityInput{ID: id, Cursor: c})
		if err != nil {
			s.errorPage(w, r, err)
			return
		}
		td.Detail.History, td.Detail.HistoryCursor, td.OlderHistory = p.History, p.NextCursor, true
	}
	s.render(w, r, status, "ticket", page{Title: d.Ticket.ID + " " + d.Ticket.Title, Error: errMsg, Data: td})
}

// createWorkspace is the home page's form.
func (s *Server) createWorkspace(w http.ResponseWriter, r *http.Request) {
	in := board.CreateWorkspaceInput{RequestID: r.PostFormValue("request_id"), Slug: strings.TrimSpace(r.PostFormValue("slug")),
		Name: strings.TrimSpace(r.PostFormValue("name")), AIPolicy: board.AIPolicy(r.PostFormValue("ai_policy"))}
	res, err := s.cfg.Service.CreateWorkspace(r.Context(), in)
	board.Observe(r.Context(), res, err) // the request's log line: replayed, or the error
	if err != nil {
		form, top := refusedForm("workspace", r, err, "slug", "name", "ai_policy")
		refusedPage(w, "/")
		s.showHome(w, r, formStatus(err), top, form)
		return
	}
	seeOther(w, r, "/w/"+res.Workspace.Slug)
}

type settingsData struct {
	Workspace board.Workspace
	Webhooks  bool       // the Webhooks page is served
	Form      *formState // the settings form, refused with what was typed or nil
}

func (s *Server) settingsPage(w http.ResponseWriter, r *http.Request) {
	s.showSettings(w, r, http.StatusOK, "", nil)
}

func (s *Server) showSettings(w http.ResponseWriter, r *http.Request, status int, errMsg string, form *formState) {
	ws, err := s.cfg.Service.GetWorkspaceSummary(r.Context(), board.WorkspaceInput{Workspace: r.PathValue("slug")})
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	s.render(w, r, status, "settings", page{Title: ws.Workspace.Name + " settings", Error: errMsg, Data: settingsData{Workspace: ws.Workspace, Form: form, Webhooks: s.cfg.Webhooks != nil}})
}

// updateSettings changes a workspace's name and ai_policy (admins).
func (s *Server) updateSettings(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimSpace(r.PostFormValue("name"))
	policy := board.AIPolicy(r.PostFormValue("ai_policy"))
	in := board.UpdateWorkspaceInput{RequestID: r.PostFormValue("request_id"), Workspace: r.PathValue("slug"), Name: &name, AIPolicy: &policy}
	res, err := s.cfg.Service.UpdateWorkspace(r.Context(), in)
	board.Observe(r.Context(), res, err)
	if err != nil {
		f, top := refusedForm("settings", r, err, "name", "ai_policy")
		s.showSettings(w, r, formStatus(err), top, f)
		return
	}
	seeOther(w, r, withFlash("/w/"+in.Workspace, "saved"))
}

// noTickets says whether the columns hold no ticket and no link to more.
func noTickets(cols []column) bool {
	for _, c := range cols {
		if len(c.Tickets) > 0 || c.More != "" {
			return false
		}
	}
	return true
}
