package board

import (
	"slices"
	"time"
)

// ListActivityInput asks for the activity feed: what happened on the
// board, newest first.
type ListActivityInput struct {
	Workspace string `json:"workspace,omitempty" jsonschema:"workspace slug, e.g. inbox; omit for every workspace you may see"`
	Since     string `json:"since,omitempty" jsonschema:"only events after this time (RFC 3339, e.g. 2026-12-01T09:00:00Z); pass latest from your previous answer to see only what changed since"`
	By        string `json:"by,omitempty" jsonschema:"only events written by this author, as events show it (human:<handle>, ai:<name>, human)"`
	Kind      string `json:"kind,omitempty" jsonschema:"only events of this kind: ticket.created, ticket.updated, ticket.moved, note.added, workspace.created or workspace.updated"`
	Limit     int    `json:"limit,omitempty" jsonschema:"page size 1-100, default 20"`
	Cursor    string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page, with the same workspace, since, by and kind; omit to start from the newest"`
}

// FeedInput is ListActivityInput without a workspace: the feed of every
// workspace the caller may see (GET /api/v1/events).
type FeedInput struct {
	Since  string `json:"since,omitempty" jsonschema:"only events after this time (RFC 3339, e.g. 2026-12-01T09:00:00Z); pass latest from your previous answer to see only what changed since"`
	By     string `json:"by,omitempty" jsonschema:"only events written by this author, as events show it (human:<handle>, ai:<name>, human)"`
	Kind   string `json:"kind,omitempty" jsonschema:"only events of this kind: ticket.created, ticket.updated, ticket.moved, note.added, workspace.created or workspace.updated"`
	Limit  int    `json:"limit,omitempty" jsonschema:"page size 1-100, default 20"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page, with the same workspace, since, by and kind; omit to start from the newest"`
}

// Activity is the same request as a ListActivityInput.
func (in FeedInput) Activity() ListActivityInput {
	return ListActivityInput{Since: in.Since, By: in.By, Kind: in.Kind, Limit: in.Limit, Cursor: in.Cursor}
}

// EventKinds are the kinds of event the feed filters by.
var EventKinds = []string{EventTicketCreated, EventTicketUpdated, EventTicketMoved, EventNoteAdded, EventNoteEdited, EventNoteRedacted,
	EventTicketClaimed, EventTicketClaimRenewed, EventTicketReleased, EventTicketClaimBroken,
	EventTicketRelated, EventTicketUnrelated, EventWorkspaceCreated, EventWorkspaceUpdated}

// maxAuthor bounds an author filter: longer than any author the board
// writes.
const maxAuthor = 200

// validate checks the input, fills the default page size and returns the
// since bound (zero: none).
func (in *ListActivityInput) validate() (time.Time, error) {
	if in.Workspace != "" {
		if err := ValidateSlug(in.Workspace); err != nil {
			return time.Time{}, err
		}
	}
	if in.Limit == 0 {
		in.Limit = DefaultLimit
	}
	if in.Limit < 1 || in.Limit > MaxLimit {
		return time.Time{}, invalid("limit %d is out of range 1-%d", in.Limit, MaxLimit)
	}
	if in.Kind != "" && !slices.Contains(EventKinds, in.Kind) {
		return time.Time{}, invalid("kind '%s' is not an event kind; use one of ticket.created, ticket.updated, ticket.moved, note.added, workspace.created, workspace.updated, or omit it", clip(in.Kind))
	}
	if len(in.By) > maxAuthor {
		return time.Time{}, invalid("by is longer than %d bytes; give an author as events show it (human:<handle>, ai:<name>), or omit it", maxAuthor)
	}
	if in.Since == "" {
		return time.Time{}, nil
	}
	since, err := time.Parse(time.RFC3339Nano, in.Since)
	if err != nil {
		return time.Time{}, invalid("since '%s' is not a time; give RFC 3339 such as 2026-12-01T09:00:00Z (latest of an earlier answer), or omit it", clip(in.Since))
	}
	return since.UTC(), nil
}
