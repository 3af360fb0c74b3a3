package board

import "context"

// ChangeReader is the part of Store that tells an open page whether what it
// shows has changed, in one small read, so a page can ask every few seconds
// at the cost of a cache check (the web board's live updates).
type ChangeReader interface {
	// WorkspaceMarker returns the id of the workspace's newest event, ""
	// while it has none. Every write a board shows appends an event of the
	// workspace (ticket created, updated, moved, noted; the workspace's
	// name or policy changed; a ticket imported), so the marker moves with
	// each of them. ErrNotFound when the workspace does not exist;
	// *PolicyError (with no event read) when its policy is not in readable
	// (nil reads any).
	WorkspaceMarker(ctx context.Context, slug string, readable []AIPolicy) (string, error)
	// TicketMarker returns the ticket's version, which every change to the
	// ticket moves (a note too). Errors as WorkspaceMarker, ErrNotFound
	// also for a missing ticket.
	TicketMarker(ctx context.Context, id string, readable []AIPolicy) (int64, error)
}
