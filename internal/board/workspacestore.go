package board

import (
	"context"

	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// WorkspaceWriter creates and changes workspaces through the ledger, like
// ticket writes: the request record (with its result), the workspace and the
// event commit together, so a form submitted twice writes once. Part of
// Store, in its own interface.
type WorkspaceWriter interface {
	// CreateWorkspace adds tx.Workspace (no tickets, numbering from 1).
	// Errors: *ledger.ExistsError (the request_id has a record), ErrExists
	// (the slug is taken).
	CreateWorkspace(ctx context.Context, tx WorkspaceTx) (ledger.Record, error)
	// UpdateWorkspace sets the workspace's name and ai_policy to those of
	// tx.Workspace; with Event nil only the request record is written.
	// Errors: *ledger.ExistsError, ErrNotFound.
	UpdateWorkspace(ctx context.Context, tx WorkspaceTx) (ledger.Record, error)
}

// WorkspaceTx asks a store to create or change a workspace.
type WorkspaceTx struct {
	Request   ledger.Record // with Result
	Workspace Workspace     // slug, name and ai_policy after the write
	Event     *Event
}
