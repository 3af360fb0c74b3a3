package board

import "github.com/ticket-ledger/ticket-ledger/internal/ledger"

// Results of the use cases; the MCP adapter uses them as output types.

// WorkspacesResult lists the workspaces the caller may see.
type WorkspacesResult struct {
	Workspaces []Workspace `json:"workspaces"`
}

// WorkspaceSummary is the first thing to read before writing in a workspace.
type WorkspaceSummary struct {
	Workspace    Workspace      `json:"workspace"`
	Counts       map[Status]int `json:"counts"`
	WaitingAI    []Ticket       `json:"waiting_ai"`
	DueSoon      []Ticket       `json:"due_soon"`
	RecentEvents []Event        `json:"recent_events"`
}

// TicketList is one page of tickets.
type TicketList struct {
	Tickets    []Ticket `json:"tickets"`
	NextCursor *string  `json:"next_cursor"`
	Partial    bool     `json:"partial,omitempty" jsonschema:"true when this page holds fewer tickets than limit because the call reached a bound (the tickets one search call may read, or the size of one answer) before filling it: more may match, call again with next_cursor"`
	Total      *int     `json:"total,omitempty" jsonschema:"how many tickets match, all pages together; given only for a list filtered by nothing but status (the board keeps those counts), absent when counting would cost a search"`

	query TicketQuery // the filters, for cursors made when the page is cut to size
	seal  *cursorSeal // seals those cursors
}

// NoteList is one page of a ticket's notes.
type NoteList struct {
	TicketID   string  `json:"ticket_id"`
	Notes      []Note  `json:"notes" jsonschema:"notes before the cursor's position, oldest first"`
	NextCursor *string `json:"next_cursor" jsonschema:"older notes exist: pass this back to read them; null when this page reaches the first note"`

	seal *cursorSeal // seals the cursor made when the page is cut to size
}

// HistoryList is one page of a ticket's history.
type HistoryList struct {
	TicketID   string  `json:"ticket_id"`
	History    []Event `json:"history" jsonschema:"events before the cursor's position, oldest first"`
	NextCursor *string `json:"next_cursor" jsonschema:"older events exist: pass this back to read them; null when this page reaches the first event"`

	seal *cursorSeal // seals the cursor made when the page is cut to size
}

// TicketResult answers create_ticket and update_ticket.
type TicketResult struct {
	RequestID string `json:"request_id"`
	Replayed  bool   `json:"replayed"`
	Ticket    Ticket `json:"ticket"`
}

// MoveResult answers move_ticket.
type MoveResult struct {
	RequestID string `json:"request_id"`
	Replayed  bool   `json:"replayed"`
	Ticket    Ticket `json:"ticket"`
	From      Status `json:"from"`
	To        Status `json:"to"`
}

// NoteResult answers add_note.
type NoteResult struct {
	RequestID string `json:"request_id"`
	Replayed  bool   `json:"replayed"`
	Note      Note   `json:"note"`
}

// RequestLookup answers find_request: the ledger's lookup and, for a call
// that started a task (import_tickets), that task's status and progress.
type RequestLookup struct {
	ledger.Lookup
	Task *TaskView `json:"task,omitempty" jsonschema:"the task the call started (import_tickets): status, progress and, once ended, result"`
}
