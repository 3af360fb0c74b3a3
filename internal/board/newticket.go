package board

import (
	"fmt"
	"time"
)

// newTicket is a new ticket and its creation event, however it is created
// (create_ticket, or a row of an import): numbered number in workspace,
// a candidate at version 1, written by p through source under requestID
// at now. Written once so both ways make the same ticket.
func (s *Service) newTicket(workspace string, number int64, f NewTicket, p Principal, source Source, requestID string, now time.Time) (Ticket, Event) {
	t := Ticket{
		ID:         fmt.Sprintf("%s-%d", workspace, number),
		Workspace:  workspace,
		Number:     number,
		Title:      f.Title,
		Body:       f.Body,
		Status:     StatusCandidate,
		Priority:   f.Priority,
		Owner:      optional(f.Owner),
		Due:        optional(f.Due),
		Tags:       nonNil(f.Tags),
		Links:      nonNil(f.Links),
		CreatedBy:  p.Author,
		CreatedFor: p.OnBehalfOf,
		CreatedAt:  now,
		UpdatedAt:  now,
		Version:    1,
	}
	t = s.shownTicket(t)
	ev := Event{ID: s.newID(), Workspace: t.Workspace, TicketID: t.ID, Type: EventTicketCreated, Title: t.Title,
		Author: p.Author, OnBehalfOf: p.OnBehalfOf, Source: source, RequestID: requestID, At: now}
	return t, ev
}
