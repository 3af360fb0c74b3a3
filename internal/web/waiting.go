package web

import (
	"context"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// "Waiting for you", a section of the Inbox: across every workspace, the
// tickets waiting for a person that are the signed-in person's to answer
// now: owned by them, or by no one in particular (no owner, or "human",
// any person). The inbox tells of a ticket when it is moved to
// waiting_human; this section is what waits at this moment, whenever and
// however it got there (created waiting, waiting since before the inbox,
// its owner changed since).

type waitingRow struct {
	Ticket    board.Ticket
	Workspace board.Workspace
	Mine      bool // owned by the person; else unowned or any person's
}

type waitingData struct {
	Rows []waitingRow
	// Partial: a workspace holds more waiting tickets than one read
	// returns; its board's waiting column has them all.
	Partial []string
}

// waitingFor reads the tickets waiting for the caller. A workspace where
// nothing waits is not read.
func (s *Server) waitingFor(ctx context.Context) (waitingData, error) {
	me := board.PrincipalFrom(ctx).Author
	var d waitingData
	list, err := s.cfg.Service.ListWorkspaces(ctx)
	if err != nil {
		return d, err
	}
	for _, ws := range list.Workspaces {
		if ws.Counts[board.StatusWaitingHuman] == 0 {
			continue // nothing waits there: no read
		}
		// Owned by me through the owner index, so a busy workspace
		// cannot push them out of the page; the rest from the status's
		// newest page, keeping those nobody in particular owns.
		mine, err := s.cfg.Service.ListTickets(ctx, board.ListTicketsInput{Workspace: ws.Slug, Status: board.StatusWaitingHuman, Owner: me, Limit: board.MaxLimit})
		if err != nil {
			return d, err
		}
		all, err := s.cfg.Service.ListTickets(ctx, board.ListTicketsInput{Workspace: ws.Slug, Status: board.StatusWaitingHuman, Limit: board.MaxLimit})
		if err != nil {
			return d, err
		}
		for _, t := range mine.Tickets {
			d.Rows = append(d.Rows, waitingRow{Ticket: t, Workspace: ws, Mine: true})
		}
		for _, t := range all.Tickets {
			if t.Owner == nil || *t.Owner == "human" {
				d.Rows = append(d.Rows, waitingRow{Ticket: t, Workspace: ws})
			}
		}
		if mine.NextCursor != nil || all.NextCursor != nil {
			d.Partial = append(d.Partial, ws.Slug)
		}
	}
	return d, nil
}
