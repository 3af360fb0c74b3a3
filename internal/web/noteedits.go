package web

import (
	"net/http"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The ticket page corrects notes: an Edit form on each of the person's
// own notes, and for admins a Redact form on every note. Each form is
// named by its note ("noteedit-<id>", "noteredact-<id>"), so a refused one
// comes back open on its own note with what was typed.

// noteOf is the note id a form's path names, as the service finds it: a
// note from before ids named their ticket is given with the ticket the
// page shows it on, which every store can find.
func noteOf(r *http.Request) string {
	id := r.PathValue("note")
	if ref, err := board.ParseNoteID(id); err == nil && ref.TicketID == "" {
		return r.PathValue("id") + "~" + id
	}
	return id
}

// editNote is the Edit form of one of the person's own notes.
func (s *Server) editNote(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	in := board.EditNoteInput{RequestID: r.PostFormValue("request_id"), NoteID: noteOf(r), Body: r.PostFormValue("body")}
	res, err := s.cfg.Service.EditNote(r.Context(), in)
	board.Observe(r.Context(), res, err)
	if err != nil {
		form, top := refusedForm("noteedit-"+r.PathValue("note"), r, err, "body")
		refusedPage(w, "/tickets/"+id+"#notes")
		s.showTicket(w, r, id, formStatus(err), top, form)
		return
	}
	seeOther(w, r, withFlash("/tickets/"+id, "note-edited")+"#notes")
}

// redactNote is an admin's Redact form of a note.
func (s *Server) redactNote(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	in := board.RedactNoteInput{RequestID: r.PostFormValue("request_id"), NoteID: noteOf(r), Reason: strings.TrimSpace(r.PostFormValue("reason"))}
	res, err := s.cfg.Service.RedactNote(r.Context(), in)
	board.Observe(r.Context(), res, err)
	if err != nil {
		form, top := refusedForm("noteredact-"+r.PathValue("note"), r, err, "reason")
		refusedPage(w, "/tickets/"+id+"#notes")
		s.showTicket(w, r, id, formStatus(err), top, form)
		return
	}
	seeOther(w, r, withFlash("/tickets/"+id, "note-redacted")+"#notes")
}

// ownNote reports whether the person signed in wrote n: a person's notes
// carry no on_behalf_of.
func ownNote(me board.Principal, n board.Note) bool {
	return me.Author != "" && n.Author == me.Author && n.OnBehalfOf == me.OnBehalfOf && n.Redacted == nil
}
