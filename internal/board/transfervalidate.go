package board

import (
	"encoding/json"
	"net/url"
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
func (w TransferredWorkspace) Validate() error {
	if err := ValidateSlug(w.Slug); err != nil {
		return err
	}
	if err := validateText("name", w.Name, 1, MaxTitle); err != nil {
		return err
	}
	if err := validatePolicy(w.AIPolicy); err != nil {
		return err
	}
	return ValidateNextNumber(w.Next)
}

// ValidateTransferredTicket checks a moved ticket: its id is its workspace and
// number, and every field is one the service could have written.
func ValidateTransferredTicket(t Ticket) error {
	slug, n, err := ParseTicketID(t.ID)
	if err != nil {
		return err
	}
	if slug != t.Workspace || n != t.Number {
		return invalid("ticket id %q does not match workspace %q and number %d", clip(t.ID), clip(t.Workspace), t.Number)
	}
	if err := ValidateTicketNumber(t.Number); err != nil {
		return err
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
	if t.Owner != nil {
		if err := ValidateAuthor("owner", *t.Owner); err != nil {
			return err
		}
	}
	if t.CreatedFor != "" && !isPersonAuthor(t.CreatedFor) {
		return invalid("ticket %s: created_for %q must be human:<handle>", t.ID, clip(t.CreatedFor))
	}
	if err := validateTransferredClaim(t); err != nil {
		return err
	}
	if err := validateTransferredTicketURL(t); err != nil {
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

// validateTransferredClaim checks a moved ticket's claim, if it has one: a
// holder as a claim names one, and a lease that ends after it began.
func validateTransferredClaim(t Ticket) error {
	c := t.Claim
	if c == nil {
		return nil
	}
	if err := ValidateAuthor("claim.by", c.By); err != nil {
		return err
	}
	if c.For != "" && !isPersonAuthor(c.For) {
		return invalid("ticket %s: claim.for %q must be human:<handle>", t.ID, clip(c.For))
	}
	if c.Since.IsZero() || !c.Until.After(c.Since) {
		return invalid("ticket %s: a claim's since must be set and its until after it", t.ID)
	}
	return nil
}

// ValidateTransferredNote checks a moved note.
func ValidateTransferredNote(n Note) error {
	if !isTransferredNoteID(n.ID, n.TicketID) {
		return invalid("note id %q must be 1-64 letters, digits, '.', '_' or '-', or an id naming its ticket %s", clip(n.ID), clip(n.TicketID))
	}
	if _, num, err := ParseTicketID(n.TicketID); err != nil {
		return err
	} else if err := ValidateTicketNumber(num); err != nil {
		return err
	}
	if err := validateText("body", n.Body, 1, MaxNoteBody); err != nil {
		return err
	}
	if err := ValidateAuthor("author", n.Author); err != nil {
		return err
	}
	if n.OnBehalfOf != "" && !isPersonAuthor(n.OnBehalfOf) {
		return invalid("note %s: on_behalf_of %q must be human:<handle>", n.ID, clip(n.OnBehalfOf))
	}
	if !slices.Contains(sources, n.Source) {
		return invalid("note %s: source %q is not one of mcp, rest, web, task", n.ID, clip(string(n.Source)))
	}
	if n.CreatedAt.IsZero() {
		return invalid("note %s: created_at is missing", n.ID)
	}
	return validateTransferredNoteEdits(n)
}

// ValidateTransferredEvent checks a moved history event: a type the service
// writes, with exactly the parts that type carries, each within the
// service's limits (a move's reason at most MaxReason, the changed fields
// named from the fields a write changes), so that stored history stays as
// small as the service keeps it.
func ValidateTransferredEvent(e Event) error {
	if !isTransferredID(e.ID) {
		return invalid("event id %q must be 1-64 letters, digits, '.', '_' or '-'", clip(e.ID))
	}
	if err := ValidateSlug(e.Workspace); err != nil {
		return err
	}
	kind, ok := eventKinds[e.Type]
	if !ok {
		return invalid("event %s: type %q is not one of the history's types", e.ID, clip(e.Type))
	}
	if kind.ticket != (e.TicketID != "") {
		return invalid("event %s: a %s event must have a ticket_id exactly when it is about a ticket", e.ID, e.Type)
	}
	if e.TicketID != "" {
		slug, n, err := ParseTicketID(e.TicketID)
		if err != nil {
			return err
		}
		if slug != e.Workspace {
			return invalid("event %s: ticket %s is not in workspace %s", e.ID, e.TicketID, e.Workspace)
		}
		if err := ValidateTicketNumber(n); err != nil {
			return err
		}
	}
	if len(e.Fields) > len(kind.fields) {
		return invalid("event %s: %d fields named; a %s event names at most %d", e.ID, len(e.Fields), e.Type, len(kind.fields))
	}
	for i, f := range e.Fields {
		if !slices.Contains(kind.fields, f) || slices.Contains(e.Fields[:i], f) {
			return invalid("event %s: field %q is not one a %s event names, or is named twice", e.ID, clip(f), e.Type)
		}
	}
	if e.Type == EventNoteRedacted {
		if err := validateText("reason", e.Reason, 1, MaxReason); err != nil || e.From != "" || e.To != "" {
			return invalid("event %s: a %s event has a reason of 1-%d characters and no from or to", e.ID, e.Type, MaxReason)
		}
	} else if e.Type == EventTicketMoved || (movesWithClaim(e.Type) && (e.From != "" || e.To != "")) {
		if err := ValidateStatus(Status(e.From)); err != nil {
			return err
		}
		if err := ValidateStatus(Status(e.To)); err != nil {
			return err
		}
		if err := validateText("reason", e.Reason, 0, MaxReason); err != nil {
			return invalid("event %s: %s", e.ID, err.Error())
		}
	} else if e.From != "" || e.To != "" || e.Reason != "" {
		return invalid("event %s: only a %s, %s or %s event has from, to and reason", e.ID, EventTicketMoved, EventTicketReleased, EventTicketClaimBroken)
	}
	if e.Holder != "" && (!eventKinds[e.Type].ticket || len(e.Holder) > 2*maxTransferredKey) {
		return invalid("event %s: holder names the claim a ticket event ended, in at most %d characters", e.ID, 2*maxTransferredKey)
	}
	if err := validateRelationEvent(e); err != nil {
		return err
	}
	if noteEvent(e.Type) != (e.NoteID != "") || e.NoteID != "" && !isTransferredNoteID(e.NoteID, e.TicketID) {
		return invalid("event %s: a %s, %s or %s event, and only it, names its note by an id of 1-64 letters, digits, '.', '_' or '-', or one naming its ticket", e.ID, EventNoteAdded, EventNoteEdited, EventNoteRedacted)
	}
	if err := ValidateAuthor("author", e.Author); err != nil {
		return err
	}
	if e.OnBehalfOf != "" {
		if err := ValidateAuthor("on_behalf_of", e.OnBehalfOf); err != nil {
			return err
		}
	}
	if len(e.Mentions) > MaxMentions || slices.ContainsFunc(e.Mentions, func(m string) bool { return !isPersonAuthor(m) && !isAIName(m) }) {
		return invalid("event %s: mentions are at most %d names, each human:<handle> or ai:<name>", e.ID, MaxMentions)
	}
	if err := validateTransferredInbox(e); err != nil {
		return err
	}
	if !slices.Contains(sources, e.Source) {
		return invalid("event %s: source %q is not one of mcp, rest, web, task", e.ID, clip(string(e.Source)))
	}
	if e.RequestID != "" {
		if err := ledger.ValidateRequestID(strings.Split(e.RequestID, "#")[0]); err != nil || len(e.RequestID) > maxTransferredKey {
			return invalid("event %s: request_id %q is not one a caller could give", e.ID, clip(e.RequestID))
		}
	}
	if e.At.IsZero() {
		return invalid("event %s: at is missing", e.ID)
	}
	return validateMovedChanges(e)
}

// eventKind is what an event of one type carries.
type eventKind struct {
	ticket bool     // it is about a ticket (ticket_id set)
	fields []string // the fields it may name as changed
}

var ticketFields = []string{"title", "body", "priority", "owner", "due", "tags", "links"}

var eventKinds = map[string]eventKind{
	EventTicketCreated:      {ticket: true},
	EventTicketUpdated:      {ticket: true, fields: ticketFields},
	EventTicketMoved:        {ticket: true},
	EventNoteAdded:          {ticket: true},
	EventNoteEdited:         {ticket: true, fields: []string{"body"}},
	EventNoteRedacted:       {ticket: true},
	EventTicketClaimed:      {ticket: true},
	EventTicketClaimRenewed: {ticket: true},
	EventTicketReleased:     {ticket: true},
	EventTicketClaimBroken:  {ticket: true},
	EventTicketRelated:      {ticket: true},
	EventTicketUnrelated:    {ticket: true},
	EventWorkspaceCreated:   {fields: []string{"name", "ai_policy"}},
	EventWorkspaceUpdated:   {fields: []string{"name", "ai_policy"}},
}

// movesWithClaim reports whether events of type typ may carry a move: a
// release with a status moves the ticket in the same write.
func movesWithClaim(typ string) bool {
	return typ == EventTicketReleased || typ == EventTicketClaimBroken
}

// maxTransferredKey bounds a moved record's principal and request id: an
// agent's name and a person's handle with their prefixes, or a request id
// with an import's row number.
const maxTransferredKey = 256

// ValidateTransferredRequest checks a moved request record: a completed one,
// under a valid key, with its arguments and result JSON objects no larger
// than the service's largest (MaxTransferredJSON).
func ValidateTransferredRequest(r ledger.Record) error {
	if r.Key.Principal == "" || len(r.Key.Principal) > maxTransferredKey || strings.ContainsFunc(r.Key.Principal, func(c rune) bool { return c == '#' || c <= ' ' || c > '~' }) {
		return invalid("request record: principal %q is empty, too long, or holds '#', spaces or other characters no caller has", clip(r.Key.Principal))
	}
	if err := ledger.ValidateRequestID(r.Key.RequestID); err != nil {
		return invalid("request record: %s", err.Error())
	}
	if r.Tool == "" || len(r.Tool) > 64 || !isHexDigest(r.Fingerprint) {
		return invalid("request record %s: a tool and a fingerprint (a hex SHA-256) are required", r.Key.RequestID)
	}
	if r.Status != ledger.StatusDone {
		return invalid("request record %s: status %q: only completed records move", r.Key.RequestID, r.Status)
	}
	if !r.ExpiresAt.After(r.CreatedAt) {
		return invalid("request record %s: expires_at must be after created_at", r.Key.RequestID)
	}
	for _, part := range []struct {
		name string
		v    []byte
	}{{"args", r.Args}, {"result", r.Result}} {
		if len(part.v) > MaxTransferredJSON {
			return invalid("request record %s: %s is %d bytes, more than any call's (%d)", r.Key.RequestID, part.name, len(part.v), MaxTransferredJSON)
		}
		if len(part.v) == 0 || part.v[0] != '{' || !json.Valid(part.v) {
			return invalid("request record %s: %s must be a JSON object", r.Key.RequestID, part.name)
		}
	}
	return nil
}

// ValidateTicketNumber checks a ticket number a store is given: 1 to
// MaxTicketNumber.
func ValidateTicketNumber(n int64) error {
	if n < 1 || n > MaxTicketNumber {
		return invalid("ticket number %d is out of range 1-%d", n, int64(MaxTicketNumber))
	}
	return nil
}

// ValidateNextNumber checks a workspace's counter a store is given (the
// number its next ticket gets): 1 to MaxTicketNumber.
func ValidateNextNumber(next int64) error {
	if next < 1 || next > MaxTicketNumber {
		return invalid("next_number %d is out of range 1-%d", next, int64(MaxTicketNumber))
	}
	return nil
}

// validateTransferredTicketURL checks a moved ticket's url as the service writes
// it: empty, or the board's base URL (an http or https origin and path)
// followed by /tickets/<id>.
func validateTransferredTicketURL(t Ticket) error {
	if t.URL == "" {
		return nil
	}
	base, ok := strings.CutSuffix(t.URL, "/tickets/"+t.ID)
	if !ok || len(t.URL) > maxTransferredURI || strings.ContainsFunc(t.URL, func(c rune) bool { return c <= ' ' || c > '~' }) {
		return invalid("ticket %s: url %q must be the board's address followed by /tickets/%s", t.ID, clip(t.URL), t.ID)
	}
	if base == "" {
		return nil
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return invalid("ticket %s: url %q must start with the board's http or https address", t.ID, clip(t.URL))
	}
	return nil
}

// isTransferredID: the ids the service gives notes and events (UUIDs), and
// anything of their alphabet up to 64 characters.
func isTransferredID(s string) bool {
	return every(s, 1, 64, func(c byte) bool { return isAlnum(c) || c == '.' || c == '_' || c == '-' })
}

func isHexDigest(s string) bool {
	return every(s, 64, 64, func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' })
}

// TransferredTool reports whether a request record of tool moves with the board:
// the ticket and workspace writes. Imports' and task cancellations' records
// answer with tasks, which stay with the store that ran them.
func TransferredTool(tool string) bool {
	return slices.Contains([]string{ToolCreateTicket, ToolUpdateTicket, ToolMoveTicket, ToolAddNote, ToolEditNote, ToolRedactNote, ToolCreateWorkspace, ToolUpdateWorkspace}, tool)
}
