package web

import (
	"net/http"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// assignToMe is the ticket page's "Assign to me": an update of the owner
// alone, to the signed-in person, under the form's request_id like every
// write (a double click assigns once, and records one change).
func (s *Server) assignToMe(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	me := board.PrincipalFrom(r.Context()).Author
	in := board.UpdateTicketInput{RequestID: r.PostFormValue("request_id"), ID: id, Owner: board.Nullable{Set: true, Value: &me}}
	res, err := s.cfg.Service.UpdateTicket(r.Context(), in)
	board.Observe(r.Context(), res, err)
	if err != nil {
		refusedPage(w, "/tickets/"+id)
		s.showTicket(w, r, id, statusOf(err), message(err), nil)
		return
	}
	seeOther(w, r, "/tickets/"+id)
}
