package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The ticket page's relation forms. A person reads relations from the
// ticket they are on ("this ticket is blocked by inbox-2"), while the
// domain names them from the ticket that holds them (inbox-2 blocks this
// one), so each kind the form offers is turned into relate_tickets'
// {id, kind, other} here.

// relationChoice is one kind the add form offers, read from this ticket.
type relationChoice struct {
	Value string // the form's value
	Label string // what a person reads
}

// relationChoices are the kinds of the add form, in the order shown.
var relationChoices = []relationChoice{
	{"blocked_by", "is blocked by"},
	{"blocks", "blocks"},
	{"parent", "is a sub-ticket of"},
	{"child", "has the sub-ticket"},
}

// relationInput is the relation a form names from ticket id: kind as
// relationChoices' values, other the ticket picked. ok is false for a kind
// the form does not offer.
func relationInput(requestID, id, kind, other string) (in board.RelateInput, ok bool) {
	in.RequestID = requestID
	switch kind {
	case "blocks":
		in.ID, in.Kind, in.Other = id, board.RelationBlocks, other
	case "blocked_by":
		in.ID, in.Kind, in.Other = other, board.RelationBlocks, id
	case "child":
		in.ID, in.Kind, in.Other = id, board.RelationParent, other
	case "parent":
		in.ID, in.Kind, in.Other = other, board.RelationParent, id
	default:
		return in, false
	}
	return in, true
}

// pickedTicket is the ticket the picker names: an id as typed, or a bare
// number ("12", "#12") in this ticket's workspace, or the id before a
// title when the datalist's "id — title" was kept whole.
func pickedTicket(id, typed string) string {
	typed = strings.TrimSpace(typed)
	if before, _, ok := strings.Cut(typed, " "); ok {
		typed = before
	}
	typed = strings.TrimPrefix(typed, "#")
	if typed != "" && strings.Trim(typed, "0123456789") == "" {
		if slug, _, err := board.ParseTicketID(id); err == nil {
			return slug + "-" + typed
		}
	}
	return typed
}

// relateTickets is the ticket page's "Add a link" form.
func (s *Server) relateTickets(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	kind := r.PostFormValue("kind")
	other := pickedTicket(id, r.PostFormValue("other"))
	in, ok := relationInput(r.PostFormValue("request_id"), id, kind, other)
	var res board.RelationResult
	var err error
	switch {
	case !ok:
		err = board.InField("kind", board.Errorf(board.CodeInvalid, "choose how the tickets are linked: is blocked by, blocks, is a sub-ticket of, or has the sub-ticket"))
	case other == "":
		err = board.InField("other", board.Errorf(board.CodeInvalid, "name the other ticket: pick one from the list, or type its id (e.g. %s) or its number", id))
	default:
		res, err = s.cfg.Service.RelateTickets(r.Context(), in)
		board.Observe(r.Context(), res, err)
	}
	if err != nil {
		aboutPicked(err)
		form, top := refusedForm("relate", r, err, "kind", "other")
		refusedPage(w, "/tickets/"+id)
		s.showTicket(w, r, id, formStatus(err), top, form)
		return
	}
	seeOther(w, r, withFlash("/tickets/"+id, "related")+"#relations")
}

// unrelateTickets is the Remove button beside each relation the ticket
// page lists.
func (s *Server) unrelateTickets(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	in, ok := relationInput(r.PostFormValue("request_id"), id, r.PostFormValue("kind"), strings.TrimSpace(r.PostFormValue("other")))
	var res board.RelationResult
	var err error
	if !ok {
		err = board.Errorf(board.CodeInvalid, "this Remove button names no relation the board knows; reload the page and use the button beside the link")
	} else {
		res, err = s.cfg.Service.UnrelateTickets(r.Context(), in)
		board.Observe(r.Context(), res, err)
	}
	if err != nil {
		form, top := refusedForm("unrelate", r, err)
		refusedPage(w, "/tickets/"+id)
		s.showTicket(w, r, id, formStatus(err), top, form)
		return
	}
	seeOther(w, r, withFlash("/tickets/"+id, "unrelated")+"#relations")
}

// aboutPicked marks a problem with either end as a problem with the picked
// ticket: the page's own ticket is not typed, so whichever end the domain
// names, the person fixes the picker.
func aboutPicked(err error) {
	var e *board.Error
	if errors.As(err, &e) && (e.Field == "id" || e.Field == "other") {
		e.Field = "other"
	}
}

// ticketChoices are the workspace's tickets the picker offers (the newest
// first, at most one list page), leaving out the ticket itself. A ticket
// beyond them is still typed by id or number.
func (s *Server) ticketChoices(r *http.Request, t board.Ticket) []board.Ticket {
	list, err := s.cfg.Service.ListTickets(r.Context(), board.ListTicketsInput{Workspace: t.Workspace, Limit: board.MaxLimit})
	if err != nil {
		return nil // the picker is a help: the form still takes a typed id
	}
	out := make([]board.Ticket, 0, len(list.Tickets))
	for _, c := range list.Tickets {
		if c.ID != t.ID {
			out = append(out, c)
		}
	}
	return out
}

// relationList is one list of related tickets on the ticket page, with
// the kind its Remove buttons send.
type relationList struct {
	Ticket  board.Ticket
	Heading string
	Slug    string // the element id of its section
	Kind    string // a relationChoices value, read from Ticket
	Tickets []board.RelatedTicket
}

func newRelationList(t board.Ticket, heading, slug, kind string, tickets []board.RelatedTicket) relationList {
	return relationList{Ticket: t, Heading: heading, Slug: slug, Kind: kind, Tickets: tickets}
}

// parentList is a ticket's parent as a list of at most one.
func parentList(p *board.RelatedTicket) []board.RelatedTicket {
	if p == nil {
		return nil
	}
	return []board.RelatedTicket{*p}
}
