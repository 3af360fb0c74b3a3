package web

import (
	"net/http"
	"slices"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The ticket forms. Each carries the request_id it was rendered with, so a
// second submission of the same form replays the first write (the same
// ticket, the same note) instead of writing again.

// splitTags reads "a, B c a" as [a b c]: what a person types is
// normalised where the intent is plain (case, repeats, separators); tags
// are lower case on the board. The domain still refuses what cannot be a
// tag, with its message. MCP and REST take tags exactly as sent.
func splitTags(s string) []string {
	var out []string
	for _, tag := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' }) {
		if tag = strings.ToLower(tag); !slices.Contains(out, tag) {
			out = append(out, tag)
		}
	}
	return out
}

// parseLinks reads the links field, one a line: "<url> [| title]" or
// "<kind> <ref> [| title]" with kind article or task.
func parseLinks(s string) []board.Link {
	var out []board.Link
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		var l board.Link
		ref, title, _ := strings.Cut(line, " | ")
		l.Title = strings.TrimSpace(title)
		ref = strings.TrimSpace(ref)
		if kind, rest, ok := strings.Cut(ref, " "); ok && (kind == "article" || kind == "task" || kind == "url") {
			l.Kind, l.Ref = kind, strings.TrimSpace(rest)
		} else {
			l.Kind, l.Ref = "url", ref
		}
		out = append(out, l)
	}
	return out
}

func optionalValue(s string) *string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	return &s
}

// refusedPage tells htmx which page a refused form is shown on: the
// address bar then holds that page's URL (a GET that reloads), not the
// URL the form posted to. It replaces rather than pushes: the person is
// still on the page they were on.
func refusedPage(w http.ResponseWriter, page string) {
	w.Header().Set("HX-Replace-Url", page)
}

// createTicket is the board's "new ticket" form.
func (s *Server) createTicket(w http.ResponseWriter, r *http.Request) {
	slug := r.PathValue("slug")
	in := board.CreateTicketInput{
		RequestID: r.PostFormValue("request_id"),
		Workspace: slug,
		NewTicket: board.NewTicket{
			Title:    strings.TrimSpace(r.PostFormValue("title")),
			Body:     r.PostFormValue("body"),
			Priority: board.Priority(r.PostFormValue("priority")),
			Owner:    s.normaliseOwner(r, r.PostFormValue("owner")),
			Due:      strings.TrimSpace(r.PostFormValue("due")),
			Tags:     splitTags(r.PostFormValue("tags")),
			Links:    parseLinks(r.PostFormValue("links")),
		},
	}
	res, err := s.cfg.Service.CreateTicket(r.Context(), in)
	board.Observe(r.Context(), res, err) // the request's log line: replayed, or the error
	if err != nil {
		form, top := refusedForm("new", r, err, "title", "body", "priority", "owner", "due", "tags", "links")
		refusedPage(w, "/w/"+slug)
		s.showBoard(w, r, slug, formStatus(err), top, form)
		return
	}
	seeOther(w, r, localPath(r.PostFormValue("return_to"), "/tickets/"+res.Ticket.ID))
}

// editTicket is the ticket page's edit form: every field is sent, and the
// use case records only what changed. Links are sent only when their text
// changed, so links the form cannot show exactly are never rewritten.
func (s *Server) editTicket(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	title := strings.TrimSpace(r.PostFormValue("title"))
	body := r.PostFormValue("body")
	priority := board.Priority(r.PostFormValue("priority"))
	tags := splitTags(r.PostFormValue("tags"))
	in := board.UpdateTicketInput{
		RequestID: r.PostFormValue("request_id"),
		ID:        id,
		Title:     &title,
		Body:      &body,
		Priority:  &priority,
		Owner:     board.Nullable{Set: true, Value: optionalValue(s.normaliseOwner(r, r.PostFormValue("owner")))},
		Due:       board.Nullable{Set: true, Value: optionalValue(r.PostFormValue("due"))},
		Tags:      &tags,
	}
	if links := r.PostFormValue("links"); strings.TrimSpace(links) != strings.TrimSpace(r.PostFormValue("links_before")) {
		parsed := parseLinks(links)
		if parsed == nil {
			parsed = []board.Link{}
		}
		in.Links = &parsed
	}
	res, err := s.cfg.Service.UpdateTicket(r.Context(), in)
	board.Observe(r.Context(), res, err)
	if err != nil {
		form, top := refusedForm("edit", r, err, "title", "body", "priority", "owner", "due", "tags", "links")
		refusedPage(w, "/tickets/"+id)
		s.showTicket(w, r, id, formStatus(err), top, form)
		return
	}
	seeOther(w, r, withFlash("/tickets/"+id, "saved"))
}

// moveTicket is the move form of the ticket page and of each board card.
func (s *Server) moveTicket(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	in := board.MoveTicketInput{RequestID: r.PostFormValue("request_id"), ID: id,
		Status: board.Status(r.PostFormValue("status")), Reason: strings.TrimSpace(r.PostFormValue("reason"))}
	res, err := s.cfg.Service.MoveTicket(r.Context(), in)
	board.Observe(r.Context(), res, err)
	if err != nil {
		form, top := refusedForm("move", r, err, "status", "reason")
		refusedPage(w, "/tickets/"+id)
		s.showTicket(w, r, id, formStatus(err), top, form)
		return
	}
	seeOther(w, r, localPath(r.PostFormValue("return_to"), "/tickets/"+id))
}

// addNote is the ticket page's note form.
func (s *Server) addNote(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	in := board.AddNoteInput{RequestID: r.PostFormValue("request_id"), ID: id, Body: r.PostFormValue("body")}
	res, err := s.cfg.Service.AddNote(r.Context(), in)
	board.Observe(r.Context(), res, err)
	if err != nil {
		form, top := refusedForm("note", r, err, "body")
		refusedPage(w, "/tickets/"+id+"#notes")
		s.showTicket(w, r, id, formStatus(err), top, form)
		return
	}
	seeOther(w, r, "/tickets/"+id+"#notes")
}
