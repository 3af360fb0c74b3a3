package web

import (
	"net/http"
	"net/url"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// breakClaim is the ticket page's "Break claim": a person ends whoever's
// claim holds the ticket, so an agent that stopped working on it does not
// keep it until its lease runs out. It asks first (confirm.go); the
// request_id travels in the confirmation's action, so a double click on
// the confirmed form ends the claim once.
func (s *Server) breakClaim(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	requestID := r.FormValue("request_id")
	holder := "its holder"
	if d, err := s.cfg.Service.GetTicket(r.Context(), board.TicketIDInput{ID: id}); err == nil && d.Ticket.Claim != nil {
		holder = board.DisplayAuthor(d.Ticket.Claim.By, d.Ticket.Claim.For)
	}
	if !s.confirmed(w, r, confirmData{Question: "Break the claim on " + id + "?",
		Effect: holder + " is working on this ticket. Breaking the claim frees it at once: their next change to it is refused, and anyone may claim it. The history records who broke it.",
		Action: "/tickets/" + id + "/release?request_id=" + url.QueryEscape(requestID), Button: "Break the claim", Cancel: "/tickets/" + id}) {
		return
	}
	res, err := s.cfg.Service.ReleaseTicket(r.Context(), board.ReleaseTicketInput{RequestID: requestID, ID: id})
	board.Observe(r.Context(), res, err)
	if err != nil {
		refusedPage(w, "/tickets/"+id)
		s.showTicket(w, r, id, statusOf(err), message(err), nil)
		return
	}
	seeOther(w, r, "/tickets/"+id)
}
