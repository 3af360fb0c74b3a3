package openingstore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// Every method of the stores the composition root hands out (Backend) but
// Close, forwarded: to the open store (s.get),
// or, for the reads of a credential check, to the store published early
// (s.forCredentials, early.go). Embedding cannot do this: the store to
// forward to is not there yet when Store is made. The two methods with
// three results are written out.

// Store's own: workspaces, tickets, the ledger's request records.

// ListWorkspaces is board.Store's, answered once the store is open.
func (s *Store) ListWorkspaces(ctx context.Context) ([]board.Workspace, error) {
	return call(ctx, s.get, func(st Backend) ([]board.Workspace, error) { return st.ListWorkspaces(ctx) })
}

// GetWorkspace is board.Store's, answered once the store is open.
func (s *Store) GetWorkspace(ctx context.Context, slug string) (board.Workspace, error) {
	return call(ctx, s.get, func(st Backend) (board.Workspace, error) { return st.GetWorkspace(ctx, slug) })
}

// SetWorkspacePolicy is board.Store's, answered once the store is open.
func (s *Store) SetWorkspacePolicy(ctx context.Context, slug string, policy board.AIPolicy, ev board.Event) error {
	return do(ctx, s.get, func(st Backend) error { return st.SetWorkspacePolicy(ctx, slug, policy, ev) })
}

// SimilarCandidates is board.Store's, answered once the store is open.
func (s *Store) SimilarCandidates(ctx context.Context, q board.SimilarQuery) ([]board.Ticket, error) {
	return call(ctx, s.get, func(st Backend) ([]board.Ticket, error) { return st.SimilarCandidates(ctx, q) })
}

// ListTickets is board.Store's, answered once the store is open.
func (s *Store) ListTickets(ctx context.Context, q board.TicketQuery) (board.TicketPage, error) {
	return call(ctx, s.get, func(st Backend) (board.TicketPage, error) { return st.ListTickets(ctx, q) })
}

// ListEvents is board.Store's, answered once the store is open.
func (s *Store) ListEvents(ctx context.Context, workspace string, limit int) ([]board.Event, error) {
	return call(ctx, s.get, func(st Backend) ([]board.Event, error) { return st.ListEvents(ctx, workspace, limit) })
}

// WorkspaceMarker is board.Store's, answered once the store is open.
func (s *Store) WorkspaceMarker(ctx context.Context, slug string, readable []board.AIPolicy) (string, error) {
	return call(ctx, s.get, func(st Backend) (string, error) { return st.WorkspaceMarker(ctx, slug, readable) })
}

// TicketMarker is board.Store's, answered once the store is open.
func (s *Store) TicketMarker(ctx context.Context, id string, readable []board.AIPolicy) (int64, error) {
	return call(ctx, s.get, func(st Backend) (int64, error) { return st.TicketMarker(ctx, id, readable) })
}

// GetRequest is board.Store's, answered once the store is open.
func (s *Store) GetRequest(ctx context.Context, key ledger.Key, now time.Time) (ledger.Record, error) {
	return call(ctx, s.get, func(st Backend) (ledger.Record, error) { return st.GetRequest(ctx, key, now) })
}

// LoadForWrite is board.Store's, answered once the store is open.
func (s *Store) LoadForWrite(ctx context.Context, key ledger.Key, ticketID string, now time.Time) (board.WriteContext, error) {
	return call(ctx, s.get, func(st Backend) (board.WriteContext, error) { return st.LoadForWrite(ctx, key, ticketID, now) })
}

// CreateTicket is board.Store's, answered once the store is open.
func (s *Store) CreateTicket(ctx context.Context, tx board.CreateTx) (ledger.Record, error) {
	return call(ctx, s.get, func(st Backend) (ledger.Record, error) { return st.CreateTicket(ctx, tx) })
}

// SaveTicket is board.Store's, answered once the store is open.
func (s *Store) SaveTicket(ctx context.Context, tx board.SaveTx) (ledger.Record, error) {
	return call(ctx, s.get, func(st Backend) (ledger.Record, error) { return st.SaveTicket(ctx, tx) })
}

// ClaimRequest is board.Store's, answered once the store is open.
func (s *Store) ClaimRequest(ctx context.Context, rec ledger.Record, now time.Time) error {
	return do(ctx, s.get, func(st Backend) error { return st.ClaimRequest(ctx, rec, now) })
}

// CompleteRequest is board.Store's, answered once the store is open.
func (s *Store) CompleteRequest(ctx context.Context, key ledger.Key, owner string, result []byte) error {
	return do(ctx, s.get, func(st Backend) error { return st.CompleteRequest(ctx, key, owner, result) })
}

// ReleaseRequest is board.Store's, answered once the store is open.
func (s *Store) ReleaseRequest(ctx context.Context, key ledger.Key, owner string) error {
	return do(ctx, s.get, func(st Backend) error { return st.ReleaseRequest(ctx, key, owner) })
}

// PolicyReader and Pinger.

// WorkspacePolicy is board.Store's, answered once the store is open.
func (s *Store) WorkspacePolicy(ctx context.Context, slug string) (board.AIPolicy, error) {
	return call(ctx, s.get, func(st Backend) (board.AIPolicy, error) { return st.WorkspacePolicy(ctx, slug) })
}

// Ping is board.Store's, answered once the store is open.
func (s *Store) Ping(ctx context.Context) error {
	return do(ctx, s.get, func(st Backend) error { return st.Ping(ctx) })
}

// BoundedReads.

// ReadTicket is board.Store's, answered once the store is open.
func (s *Store) ReadTicket(ctx context.Context, q board.TicketRead) (board.TicketActivity, error) {
	return call(ctx, s.get, func(st Backend) (board.TicketActivity, error) { return st.ReadTicket(ctx, q) })
}

// ListNotes is board.Store's, answered once the store is open.
func (s *Store) ListNotes(ctx context.Context, q board.ActivityQuery) (board.NotePage, error) {
	return call(ctx, s.get, func(st Backend) (board.NotePage, error) { return st.ListNotes(ctx, q) })
}

// ListHistory is board.Store's, answered once the store is open.
func (s *Store) ListHistory(ctx context.Context, q board.ActivityQuery) (board.EventPage, error) {
	return call(ctx, s.get, func(st Backend) (board.EventPage, error) { return st.ListHistory(ctx, q) })
}

// ReadSummary is board.Store's, answered once the store is open.
func (s *Store) ReadSummary(ctx context.Context, q board.SummaryQuery) (board.SummaryRead, error) {
	return call(ctx, s.get, func(st Backend) (board.SummaryRead, error) { return st.ReadSummary(ctx, q) })
}

// ListActivity is board.Store's, answered once the store is open.
func (s *Store) ListActivity(ctx context.Context, q board.FeedQuery) (board.FeedPage, error) {
	return call(ctx, s.get, func(st Backend) (board.FeedPage, error) { return st.ListActivity(ctx, q) })
}

// WorkspaceWriter.

// CreateWorkspace is board.Store's, answered once the store is open.
func (s *Store) CreateWorkspace(ctx context.Context, tx board.WorkspaceTx) (ledger.Record, error) {
	return call(ctx, s.get, func(st Backend) (ledger.Record, error) { return st.CreateWorkspace(ctx, tx) })
}

// UpdateWorkspace is board.Store's, answered once the store is open.
func (s *Store) UpdateWorkspace(ctx context.Context, tx board.WorkspaceTx) (ledger.Record, error) {
	return call(ctx, s.get, func(st Backend) (ledger.Record, error) { return st.UpdateWorkspace(ctx, tx) })
}

// TaskStore.

// CreateTask is board.Store's, answered once the store is open.
func (s *Store) CreateTask(ctx context.Context, t board.Task, rows []json.RawMessage) error {
	return do(ctx, s.get, func(st Backend) error { return st.CreateTask(ctx, t, rows) })
}

// GetTask is board.Store's, answered once the store is open.
func (s *Store) GetTask(ctx context.Context, id string, now time.Time) (board.Task, error) {
	return call(ctx, s.get, func(st Backend) (board.Task, error) { return st.GetTask(ctx, id, now) })
}

// StagedRows is board.Store's, answered once the store is open.
func (s *Store) StagedRows(ctx context.Context, taskID string, from, n int) ([]json.RawMessage, error) {
	return call(ctx, s.get, func(st Backend) ([]json.RawMessage, error) { return st.StagedRows(ctx, taskID, from, n) })
}

// ImportChunk is board.Store's, answered once the store is open.
func (s *Store) ImportChunk(ctx context.Context, tx board.ChunkTx) (board.Task, error) {
	return call(ctx, s.get, func(st Backend) (board.Task, error) { return st.ImportChunk(ctx, tx) })
}

// UpdateTask is board.Store's, answered once the store is open.
func (s *Store) UpdateTask(ctx context.Context, t board.Task, from []board.TaskStatus) error {
	return do(ctx, s.get, func(st Backend) error { return st.UpdateTask(ctx, t, from) })
}

// UnfinishedTasks is board.Store's, answered once the store is open.
func (s *Store) UnfinishedTasks(ctx context.Context, now time.Time) ([]board.Task, error) {
	return call(ctx, s.get, func(st Backend) ([]board.Task, error) { return st.UnfinishedTasks(ctx, now) })
}

// The server's own secrets.

// ServerSecret is board.Store's, answered once the store is open.
func (s *Store) ServerSecret(ctx context.Context, name string, candidate []byte) ([]byte, error) {
	return call(ctx, s.get, func(st Backend) ([]byte, error) { return st.ServerSecret(ctx, name, candidate) })
}
