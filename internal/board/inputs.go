package board

import (
	"bytes"
	"encoding/json"
)

// The inputs below are the use cases' arguments. The MCP adapter uses them
// as tool input types, so the JSON names and descriptions here are what a
// model sees; REST decodes the same structs.

// CreateTicketInput creates a ticket. The ticket's fields are NewTicket,
// embedded so that create_ticket and a row of import_tickets are one
// declaration: encoding/json and the schema inference both promote an
// embedded struct's fields, so the JSON and the schema stay flat.
type CreateTicketInput struct {
	RequestID string `json:"request_id" jsonschema:"idempotency key: a new unique id (e.g. a UUID) for each new ticket; after an error or lost connection call find_request, then retry with the same id and the same arguments"`
	Workspace string `json:"workspace" jsonschema:"workspace slug, e.g. inbox (call list_workspaces to see them)"`
	NewTicket
}

// UpdateTicketInput changes fields of a ticket. Absent fields stay as they
// are; null clears what can be empty (owner, due, body, tags, links) and is
// refused for what cannot (title, priority): it is never read as absent.
// Status is not changed here.
type UpdateTicketInput struct {
	RequestID string    `json:"request_id" jsonschema:"idempotency key: a new unique id for each new change; after an error or lost connection call find_request, then retry with the same id and the same arguments"`
	ID        string    `json:"id" jsonschema:"ticket id, e.g. inbox-21"`
	Title     *string   `json:"title,omitempty" jsonschema:"new title, 1-200 characters (a ticket always has one: null is refused)"`
	Body      *string   `json:"body,omitempty" jsonschema:"new Markdown body (replaces the old one), up to 20000 characters; null clears it"`
	Priority  *Priority `json:"priority,omitempty" jsonschema:"low, normal, high or urgent (null is refused)"`
	Owner     Nullable  `json:"owner,omitzero" jsonschema:"human, human:<handle> or ai:<name>; null clears the owner"`
	Due       Nullable  `json:"due,omitzero" jsonschema:"YYYY-MM-DD; null clears the due date"`
	Tags      *[]string `json:"tags,omitempty" jsonschema:"replaces all tags (up to 20); null or [] clears them"`
	Links     *[]Link   `json:"links,omitempty" jsonschema:"replaces all links (up to 20); null or [] clears them"`
	// Status is accepted by the schema only so the refusal can name move_ticket.
	Status *string `json:"status,omitempty" jsonschema:"not accepted: status changes go through move_ticket"`
	// ClaimToken lets the holder of a live claim write (claims.go).
	ClaimToken string `json:"claim_token,omitempty" jsonschema:"the token of your claim, when you hold one on this ticket (claim_ticket, claim_next); while someone else's claim is live an agent's change is refused"`

	// IfVersion, when not 0, is a precondition (REST: If-Match): the
	// change is made only while the ticket is at this version, else
	// CodePreconditionFailed. It is not an argument (no JSON, no schema,
	// not in the fingerprint): a retry is judged by the ledger first, so a
	// replay answers whatever the precondition says now.
	IfVersion int64 `json:"-"`

	// nulls names the fields given as JSON null (UnmarshalJSON), which a
	// pointer alone cannot tell from absent ones.
	nulls []string
}

// UnmarshalJSON decodes the fields, refusing unknown ones, and remembers
// which were null, so that Validate can clear or refuse them.
func (in *UpdateTicketInput) UnmarshalJSON(b []byte) error {
	type fields UpdateTicketInput // without this method
	var f fields
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*in = UpdateTicketInput(f)
	in.nulls = nil
	for _, name := range []string{"title", "body", "priority", "tags", "links", "status"} {
		if v, ok := raw[name]; ok && bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			in.nulls = append(in.nulls, name)
		}
	}
	return nil
}

// MoveTicketInput changes a ticket's status.
type MoveTicketInput struct {
	RequestID string `json:"request_id" jsonschema:"idempotency key: a new unique id for each new move; after an error or lost connection call find_request, then retry with the same id and the same arguments"`
	ID        string `json:"id" jsonschema:"ticket id, e.g. inbox-21"`
	Status    Status `json:"status" jsonschema:"candidate, doing, waiting_human, waiting_ai, done or hold"`
	Reason    string `json:"reason,omitempty" jsonschema:"why, up to 1000 characters; kept in the history"`
	// ClaimToken lets the holder of a live claim move the ticket (claims.go).
	ClaimToken string `json:"claim_token,omitempty" jsonschema:"the token of your claim, when you hold one on this ticket (claim_ticket, claim_next); while someone else's claim is live an agent's move is refused"`
}

// AddNoteInput adds a note to a ticket.
type AddNoteInput struct {
	RequestID string `json:"request_id" jsonschema:"idempotency key: a new unique id for each new note; after an error or lost connection call find_request, then retry with the same id and the same arguments"`
	ID        string `json:"id" jsonschema:"ticket id, e.g. inbox-21"`
	Body      string `json:"body" jsonschema:"Markdown note, 1-10000 characters"`
}

// ListTicketsInput filters and pages tickets, newest first.
type ListTicketsInput struct {
	Workspace string `json:"workspace" jsonschema:"workspace slug, e.g. inbox"`
	Status    Status `json:"status,omitempty" jsonschema:"only tickets in this status"`
	Owner     string `json:"owner,omitempty" jsonschema:"only tickets with this owner (human, human:<handle> or ai:<name>)"`
	Tag       string `json:"tag,omitempty" jsonschema:"only tickets with this tag"`
	Claimed   *bool  `json:"claimed,omitempty" jsonschema:"true: only tickets someone holds a live claim on; false: only tickets nobody holds"`
	Ready     bool   `json:"ready,omitempty" jsonschema:"true: only tickets ready for work: open (candidate or waiting_ai) and every ticket that blocks them done"`
	Parent    string `json:"parent,omitempty" jsonschema:"only the sub-tickets of this ticket, e.g. inbox-21"`
	Query     string `json:"query,omitempty" jsonschema:"words to find in title, body or tags: every word must occur, case-insensitively, as a whole word (letters and digits; punctuation separates words); the last word, unless followed by a space, also matches words it begins (type-ahead, from 2 letters). Japanese, Chinese and Korean text: any 2 or more adjacent characters of it (記事, 下書き), never 1 alone. Title matches come first, then the rest, newest first in each"`
	Limit     int    `json:"limit,omitempty" jsonschema:"page size 1-100, default 20"`
	Cursor    string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
}

// WorkspaceInput names a workspace.
type WorkspaceInput struct {
	Workspace string `json:"workspace" jsonschema:"workspace slug, e.g. inbox"`
}

// TicketIDInput names a ticket.
type TicketIDInput struct {
	ID string `json:"id" jsonschema:"ticket id, e.g. inbox-21"`
}

// FindRequestInput names an earlier write.
type FindRequestInput struct {
	RequestID string `json:"request_id" jsonschema:"the request_id of an earlier write call"`
}

// Nullable is an optional string field that distinguishes absent (leave
// unchanged), null (clear) and a value.
type Nullable struct {
	Set   bool
	Value *string
}

// UnmarshalJSON records that the field was present; JSON null clears.
func (n *Nullable) UnmarshalJSON(b []byte) error {
	n.Set = true
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		n.Value = nil
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	n.Value = &s
	return nil
}

// MarshalJSON writes the value or null; omitzero leaves an unset field out.
func (n Nullable) MarshalJSON() ([]byte, error) {
	if n.Value == nil {
		return []byte("null"), nil
	}
	return json.Marshal(*n.Value)
}

// IsZero makes omitzero skip an absent field.
func (n Nullable) IsZero() bool { return !n.Set }
