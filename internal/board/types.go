package board

import "time"

// AIPolicy says what AI principals may do in a workspace.
type AIPolicy string

const (
	// PolicyReadWrite lets AI principals read and write the workspace.
	PolicyReadWrite AIPolicy = "read_write"
	// PolicyReadOnly lets AI principals read the workspace but refuses
	// their writes.
	PolicyReadOnly AIPolicy = "read_only"
	// PolicyHidden makes the workspace not exist for AI principals: every
	// call answers as for a workspace that is not there.
	PolicyHidden AIPolicy = "hidden"
)

// Status of a ticket.
type Status string

const (
	// StatusCandidate is where a new ticket starts: proposed, not yet taken up.
	StatusCandidate Status = "candidate"
	// StatusDoing: someone is working on the ticket.
	StatusDoing Status = "doing"
	// StatusWaitingHuman: the ticket waits for a person's answer or action.
	StatusWaitingHuman Status = "waiting_human"
	// StatusWaitingAI: the ticket waits for an AI agent to pick it up; the
	// workspace summary lists these.
	StatusWaitingAI Status = "waiting_ai"
	// StatusDone: the work is finished.
	StatusDone Status = "done"
	// StatusHold: the ticket is parked on purpose, neither open work nor done.
	StatusHold Status = "hold"
)

// Statuses lists every status in board order.
var Statuses = []Status{StatusCandidate, StatusDoing, StatusWaitingHuman, StatusWaitingAI, StatusDone, StatusHold}

// Priority of a ticket.
type Priority string

// The priorities, lowest first; a ticket created without one is normal.
const (
	PriorityLow    Priority = "low"
	PriorityNormal Priority = "normal"
	PriorityHigh   Priority = "high"
	PriorityUrgent Priority = "urgent"
)

// Priorities lists every priority, lowest first.
var Priorities = []Priority{PriorityLow, PriorityNormal, PriorityHigh, PriorityUrgent}

// Workspace groups tickets and carries the AI policy.
type Workspace struct {
	Slug     string         `json:"slug"`
	Name     string         `json:"name"`
	AIPolicy AIPolicy       `json:"ai_policy"`
	Counts   map[Status]int `json:"counts"`
}

// Link points from a ticket to something else.
type Link struct {
	Kind  string `json:"kind" jsonschema:"article, task or url"`
	Ref   string `json:"ref" jsonschema:"what the link points at: an article id, a task id or a URL"`
	Title string `json:"title,omitempty" jsonschema:"optional display title"`
}

// Ticket is one unit of work on the board.
type Ticket struct {
	ID        string   `json:"id"`
	Workspace string   `json:"workspace"`
	Number    int64    `json:"-"` // the n of <workspace>-<n>; stores sort and page by it
	Title     string   `json:"title"`
	Body      string   `json:"body"`
	Status    Status   `json:"status"`
	Priority  Priority `json:"priority"`
	Owner     *string  `json:"owner"`
	Due       *string  `json:"due"`
	Tags      []string `json:"tags"`
	Links     []Link   `json:"links"`
	CreatedBy string   `json:"created_by"`
	// CreatedFor is the person an agent created the ticket for
	// ("human:<handle>"), empty when its author acted for nobody: the
	// board shows "for alice" on such a ticket's card.
	CreatedFor  string     `json:"created_for,omitempty"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
	CompletedAt *time.Time `json:"completed_at"`
	URL         string     `json:"url"`
	Version     int64      `json:"version"`
	// Claim is who holds the ticket while they work on it (claims.go);
	// nil when nobody does. Stores keep an expired claim as it was
	// written: answers show it as null once its until has passed.
	Claim *Claim `json:"claim"`
	// OpenBlockers counts the tickets that block this one and are not
	// done, on a store that keeps readiness with the ticket (DynamoDB:
	// claim_next's index holds only tickets with none); a store that
	// judges readiness when it reads leaves it 0. Never shown.
	OpenBlockers int `json:"-"`
}

// Note is a comment on a ticket.
type Note struct {
	// ID names the note's ticket (noteid.go); notes written before that
	// keep the bare id they were given.
	ID       string `json:"id"`
	TicketID string `json:"ticket_id"`
	Body     string `json:"body"`
	Author   string `json:"author"`
	// OnBehalfOf is the person the author (an agent) wrote it for; empty
	// for a person's note, and on notes written before it was kept.
	OnBehalfOf string    `json:"on_behalf_of,omitempty" jsonschema:"the person the agent wrote the note for; absent for a person's note"`
	Source     Source    `json:"source"`
	CreatedAt  time.Time `json:"created_at"`
	// EditedAt is when the body last changed (edit_note, or a redaction);
	// absent on a note never changed. The earlier text is in the history.
	EditedAt *time.Time `json:"edited_at,omitempty" jsonschema:"when the note was last edited; absent when never"`
	// Redacted says an admin replaced the text, and why.
	Redacted *NoteRedaction `json:"redacted,omitempty" jsonschema:"set when an admin redacted the note: who, when and why"`
}

// NoteRedaction is an admin's replacement of a note's text.
type NoteRedaction struct {
	By     string    `json:"by"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// Source says through which surface a change arrived.
type Source string

const (
	// SourceMCP: a tool call over MCP.
	SourceMCP Source = "mcp"
	// SourceREST: a request to the REST API.
	SourceREST Source = "rest"
	// SourceWeb: a person using the web pages.
	SourceWeb Source = "web"
	// SourceTask: a durable task (an import) writing on behalf of the
	// caller who started it.
	SourceTask Source = "task"
)

// Event types of the append-only history.
const (
	EventTicketCreated = "ticket.created"
	EventTicketUpdated = "ticket.updated"
	EventTicketMoved   = "ticket.moved"
	EventNoteAdded     = "note.added"
	// A note's author changed its text (Changes keeps the body before and
	// after), or an admin redacted it (Reason; the text is not kept).
	EventNoteEdited       = "note.edited"
	EventNoteRedacted     = "note.redacted"
	EventWorkspaceUpdated = "workspace.updated"
	// Claims (claims.go): a claim taken, its lease renewed, ended by its
	// holder, or ended by a person for someone else (Holder names whose).
	EventTicketClaimed      = "ticket.claimed"
	EventTicketClaimRenewed = "ticket.claim_renewed"
	EventTicketReleased     = "ticket.released"
	EventTicketClaimBroken  = "ticket.claim_broken"
)

// FieldChange is one field of a ticket.updated event: its value before and
// after (a string, a list of tags, or null for an unset owner or due date).
type FieldChange struct {
	Field  string `json:"field"`
	Before any    `json:"before" jsonschema:"the value before the change; null when it was unset"`
	After  any    `json:"after" jsonschema:"the value after the change; null when it is unset"`
}

// Event is one entry of the append-only history.
type Event struct {
	ID        string `json:"id"`
	Workspace string `json:"workspace"`
	TicketID  string `json:"ticket_id,omitempty"`
	Type      string `json:"type"`
	// Title is the ticket's title after the event, so a line of activity,
	// a webhook or a Slack message can name the ticket without reading it
	// (empty on events written before titles were kept).
	Title  string   `json:"title,omitempty"`
	Fields []string `json:"fields,omitempty"` // ticket.updated: the fields that changed
	// Changes are the before and after values of the changed fields that
	// are short (title, priority, owner, due, tags); body and links are
	// only named in Fields, as their values can be large.
	Changes []FieldChange `json:"changes,omitempty"`
	From    string        `json:"from,omitempty"`   // ticket.moved
	To      string        `json:"to,omitempty"`     // ticket.moved
	Reason  string        `json:"reason,omitempty"` // ticket.moved
	NoteID  string        `json:"note_id,omitempty"`
	// Holder names the claim a write ended that was not its author's
	// ("ai:claude for human:alice"): a claim broken, or ended by a
	// person's move.
	Holder string `json:"holder,omitempty"`
	// Relation and Other name a relation added or removed, from this
	// event's ticket's end (blocks, blocked_by, parent_of, child_of), and
	// the ticket at its other end.
	Relation string `json:"relation,omitempty"`
	Other    string `json:"other,omitempty"`
	// Mentions are who the event's text mentions and is someone
	// (inboxaddress.go): "human:alice", "ai:claude".
	Mentions []string `json:"mentions,omitempty"`
	// Inbox is whose inbox the event went to, and why (inboxaddress.go):
	// the addressing decided with the write, kept so that what reads the
	// events alone (a webhook filtered to one person's inbox) applies the
	// same rule without a second one.
	Inbox  []InboxAddress `json:"inbox,omitempty"`
	Author string         `json:"author"`
	// OnBehalfOf is the person the author (an agent) acted for, if any.
	OnBehalfOf string    `json:"on_behalf_of,omitempty"`
	Source     Source    `json:"source"`
	RequestID  string    `json:"request_id,omitempty"`
	At         time.Time `json:"at"`
}

// TicketDetail is a ticket with its newest notes and history events, each
// list oldest first, and cursors to the older ones.
type TicketDetail struct {
	Ticket        Ticket  `json:"ticket"`
	Notes         []Note  `json:"notes" jsonschema:"the newest notes (up to 20), oldest first"`
	NotesCursor   *string `json:"notes_cursor" jsonschema:"older notes exist: pass this to list_ticket_notes to read them; null when every note is in notes"`
	History       []Event `json:"history" jsonschema:"the newest history events (up to 20), oldest first"`
	HistoryCursor *string `json:"history_cursor" jsonschema:"older events exist: pass this to list_ticket_history to read them; null when the whole history is here"`
	// The tickets it is related to, and whether it is ready for work.
	TicketRelations

	seal *cursorSeal // seals the cursors made when the detail is cut to size
}
