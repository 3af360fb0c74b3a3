package board

import (
	"slices"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// The checks below are what an import applies to each item before it
// writes it: the rules a write through the service enforces, on the item
// as it is stored, so that nothing enters a store that the service would
// not have written.

var sources = []Source{SourceMCP, SourceREST, SourceWeb, SourceTask}

// Validate checks a moved workspace.
func (w MovedWorkspace) Validate() error {
	if err := ValidateSlug(w.Slug); err != nil {
		return err
	}
	if err := validateText("name", w.Name, 1, MaxTitle); err != nil {
		return err
	}
	if err := validatePolicy(w.AIPolicy); err != nil {
		return err
	}
	if w.Next < 1 {
		return invalid("next_number %d must be at least 1", w.Next)
	}
	return nil
}

// ValidateMovedTicket checks a moved ticket: its id is its workspace and
// number, and every field is one the service could have written.
func ValidateMovedTicket(t Ticket) error {
	slug, n, err := ParseTicketID(t.ID)
	if err != nil {
		return err
	}
	if slug != t.Workspace || n != t.Number {
		return invalid("ticket id %q does not match workspace %q and number %d", clip(t.ID), clip(t.Workspace), t.Number)
	}
	if err := validateTitle(t.Title); err != nil {
		return inField("title", err)
	}
	if err := validateText("body", t.Body, 0, MaxBody); err != nil {
		return inField("body", err)
	}
	if err := ValidateStatus(t.Status); err != nil {
		return err
	}
	if err := validatePriority(t.Priority); err != nil {
		return err
	}
	if t.Due != nil {
		if err := validateDue(*t.Due); err != nil {
			return err
		}
	}
	if err := validateTags(t.Tags); err != nil {
		return err
	}
	if err := validateLinks(t.Links); err != nil {
		return err
	}
	if err := ValidateAuthor("created_by", t.CreatedBy); err != nil {
		return err
	}
	if t.CreatedAt.IsZero() || t.UpdatedAt.Before(t.CreatedAt) {
		return invalid("ticket %s: created_at must be set and updated_at not before it", t.ID)
	}
	if t.Version < 1 {
		return invalid("ticket %s: version %d must be at least 1", t.ID, t.Version)
	}
	return nil
}

// ValidateMovedNote checks a moved note.
func ValidateMovedNote(n Note) error {
	if n.ID == "" {
		return invalid("note id is empty")
	}
	if _, _, err := ParseTicketID(n.TicketID); err != nil {
		return err
	}
	if err := validateText("body", n.Body, 1, MaxNoteBody); err != nil {
		return err
	}
	if err := ValidateAuthor("author", n.Author); err != nil {
		return err
	}
	if !slices.Contains(sources, n.Source) {
		return invalid("note %s: source %q is not one of mcp, rest, web, task", n.ID, clip(string(n.Source)))
	}
	if n.CreatedAt.IsZero() {
		return invalid("note %s: created_at is missing", n.ID)
	}
	return nil
}

// ValidateMovedEvent checks a moved history event.
func ValidateMovedEvent(e Event) error {
	if e.ID == "" {
		return invalid("event id is empty")
	}
	if err := ValidateSlug(e.Workspace); err != nil {
		return err
	}
	if e.TicketID != "" {
		slug, _, err := ParseTicketID(e.TicketID)
		if err != nil {
			return err
		}
		if slug != e.Workspace {
			return invalid("event %s: ticket %s is not in workspace %s", e.ID, e.TicketID, e.Workspace)
		}
	}
	if e.Type == "" {
		return invalid("event %s: type is empty", e.ID)
	}
	if err := ValidateAuthor("author", e.Author); err != nil {
		return err
	}
	if e.OnBehalfOf != "" {
		if err := ValidateAuthor("on_behalf_of", e.OnBehalfOf); err != nil {
			return err
		}
	}
	if !slices.Contains(sources, e.Source) {
		return invalid("event %s: source %q is not one of mcp, rest, web, task", e.ID, clip(string(e.Source)))
	}
	if e.At.IsZero() {
		return invalid("event %s: at is missing", e.ID)
	}
	return nil
}

// ValidateMovedRequest checks a moved request record: a completed one,
// under a valid key, with its result.
func ValidateMovedRequest(r ledger.Record) error {
	if r.Key.Principal == "" || strings.Contains(r.Key.Principal, "#") {
		return invalid("request record: principal %q is empty or holds '#'", clip(r.Key.Principal))
	}
	if err := ledger.ValidateRequestID(r.Key.RequestID); err != nil {
		return invalid("request record: %s", err.Error())
	}
	if r.Tool == "" || r.Fingerprint == "" {
		return invalid("request record %s: tool and fingerprint are required", r.Key.RequestID)
	}
	if r.Status != ledger.StatusDone {
		return invalid("request record %s: status %q: only completed records move", r.Key.RequestID, r.Status)
	}
	if !r.ExpiresAt.After(r.CreatedAt) {
		return invalid("request record %s: expires_at must be after created_at", r.Key.RequestID)
	}
	return nil
}

// MovedTool reports whether a request record of tool moves with the board:
// the ticket and workspace writes. Imports' and task cancellations' records
// answer with tasks, which stay with the store that ran them.
func MovedTool(tool string) bool {
	return slices.Contains([]string{ToolCreateTicket, ToolUpdateTicket, ToolMoveTicket, ToolAddNote, ToolCreateWorkspace, ToolUpdateWorkspace}, tool)
}
