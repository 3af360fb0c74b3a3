package openingstore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// Every board.Store method but Close, forwarded: to the open store (s.get),
// or, for the reads of a credential check, to the store published early
// (s.forCredentials, early.go). Embedding cannot do this: the store to
// forward to is not there yet when Store is made. The two methods with
// three results are written out.

// Store's own: workspaces, tickets, the ledger's request records.

// ListWorkspaces is board.Store's, answered once the store is open.
func (s *Store) ListWorkspaces(ctx context.Context) ([]board.Workspace, error) {
	return call(ctx, s.get, func(st board.Store) ([]board.Workspace, error) { return st.ListWorkspaces(ctx) })
}

// GetWorkspace is board.Store's, answered once the store is open.
func (s *Store) GetWorkspace(ctx context.Context, slug string) (board.Workspace, error) {
	return call(ctx, s.get, func(st board.Store) (board.Workspace, error) { return st.GetWorkspace(ctx, slug) })
}

// SetWorkspacePolicy is board.Store's, answered once the store is open.
func (s *Store) SetWorkspacePolicy(ctx context.Context, slug string, policy board.AIPolicy, ev board.Event) error {
	return do(ctx, s.get, func(st board.Store) error { return st.SetWorkspacePolicy(ctx, slug, policy, ev) })
}

// SimilarCandidates is board.Store's, answered once the store is open.
func (s *Store) SimilarCandidates(ctx context.Context, q board.SimilarQuery) ([]board.Ticket, error) {
	return call(ctx, s.get, func(st board.Store) ([]board.Ticket, error) { return st.SimilarCandidates(ctx, q) })
}

// ListTickets is board.Store's, answered once the store is open.
func (s *Store) ListTickets(ctx context.Context, q board.TicketQuery) (board.TicketPage, error) {
	return call(ctx, s.get, func(st board.Store) (board.TicketPage, error) { return st.ListTickets(ctx, q) })
}

// ListEvents is board.Store's, answered once the store is open.
func (s *Store) ListEvents(ctx context.Context, workspace string, limit int) ([]board.Event, error) {
	return call(ctx, s.get, func(st board.Store) ([]board.Event, error) { return st.ListEvents(ctx, workspace, limit) })
}

// WorkspaceMarker is board.Store's, answered once the store is open.
func (s *Store) WorkspaceMarker(ctx context.Context, slug string, readable []board.AIPolicy) (string, error) {
	return call(ctx, s.get, func(st board.Store) (string, error) { return st.WorkspaceMarker(ctx, slug, readable) })
}

// TicketMarker is board.Store's, answered once the store is open.
func (s *Store) TicketMarker(ctx context.Context, id string, readable []board.AIPolicy) (int64, error) {
	return call(ctx, s.get, func(st board.Store) (int64, error) { return st.TicketMarker(ctx, id, readable) })
}

// GetRequest is board.Store's, answered once the store is open.
func (s *Store) GetRequest(ctx context.Context, key ledger.Key, now time.Time) (ledger.Record, error) {
	return call(ctx, s.get, func(st board.Store) (ledger.Record, error) { return st.GetRequest(ctx, key, now) })
}

// LoadForWrite is board.Store's, answered once the store is open.
func (s *Store) LoadForWrite(ctx context.Context, key ledger.Key, ticketID string, now time.Time) (board.WriteContext, error) {
	return call(ctx, s.get, func(st board.Store) (board.WriteContext, error) { return st.LoadForWrite(ctx, key, ticketID, now) })
}

// CreateTicket is board.Store's, answered once the store is open.
func (s *Store) CreateTicket(ctx context.Context, tx board.CreateTx) (ledger.Record, error) {
	return call(ctx, s.get, func(st board.Store) (ledger.Record, error) { return st.CreateTicket(ctx, tx) })
}

// SaveTicket is board.Store's, answered once the store is open.
func (s *Store) SaveTicket(ctx context.Context, tx board.SaveTx) (ledger.Record, error) {
	return call(ctx, s.get, func(st board.Store) (ledger.Record, error) { return st.SaveTicket(ctx, tx) })
}

// ClaimRequest is board.Store's, answered once the store is open.
func (s *Store) ClaimRequest(ctx context.Context, rec ledger.Record, now time.Time) error {
	return do(ctx, s.get, func(st board.Store) error { return st.ClaimRequest(ctx, rec, now) })
}

// CompleteRequest is board.Store's, answered once the store is open.
func (s *Store) CompleteRequest(ctx context.Context, key ledger.Key, owner string, result []byte) error {
	return do(ctx, s.get, func(st board.Store) error { return st.CompleteRequest(ctx, key, owner, result) })
}

// ReleaseRequest is board.Store's, answered once the store is open.
func (s *Store) ReleaseRequest(ctx context.Context, key ledger.Key, owner string) error {
	return do(ctx, s.get, func(st board.Store) error { return st.ReleaseRequest(ctx, key, owner) })
}

// PolicyReader and Pinger.

// WorkspacePolicy is board.Store's, answered once the store is open.
func (s *Store) WorkspacePolicy(ctx context.Context, slug string) (board.AIPolicy, error) {
	return call(ctx, s.get, func(st board.Store) (board.AIPolicy, error) { return st.WorkspacePolicy(ctx, slug) })
}

// Ping is board.Store's, answered once the store is open.
func (s *Store) Ping(ctx context.Context) error {
	return do(ctx, s.get, func(st board.Store) error { return st.Ping(ctx) })
}

// BoundedReads.

// ReadTicket is board.Store's, answered once the store is open.
func (s *Store) ReadTicket(ctx context.Context, q board.TicketRead) (board.TicketActivity, error) {
	return call(ctx, s.get, func(st board.Store) (board.TicketActivity, error) { return st.ReadTicket(ctx, q) })
}

// ListNotes is board.Store's, answered once the store is open.
func (s *Store) ListNotes(ctx context.Context, q board.ActivityQuery) (board.NotePage, error) {
	return call(ctx, s.get, func(st board.Store) (board.NotePage, error) { return st.ListNotes(ctx, q) })
}

// ListHistory is board.Store's, answered once the store is open.
func (s *Store) ListHistory(ctx context.Context, q board.ActivityQuery) (board.EventPage, error) {
	return call(ctx, s.get, func(st board.Store) (board.EventPage, error) { return st.ListHistory(ctx, q) })
}

// ReadSummary is board.Store's, answered once the store is open.
func (s *Store) ReadSummary(ctx context.Context, q board.SummaryQuery) (board.SummaryRead, error) {
	return call(ctx, s.get, func(st board.Store) (board.SummaryRead, error) { return st.ReadSummary(ctx, q) })
}

// ListActivity is board.Store's, answered once the store is open.
func (s *Store) ListActivity(ctx context.Context, q board.FeedQuery) (board.FeedPage, error) {
	return call(ctx, s.get, func(st board.Store) (board.FeedPage, error) { return st.ListActivity(ctx, q) })
}

// WorkspaceWriter.

// CreateWorkspace is board.Store's, answered once the store is open.
func (s *Store) CreateWorkspace(ctx context.Context, tx board.WorkspaceTx) (ledger.Record, error) {
	return call(ctx, s.get, func(st board.Store) (ledger.Record, error) { return st.CreateWorkspace(ctx, tx) })
}

// UpdateWorkspace is board.Store's, answered once the store is open.
func (s *Store) UpdateWorkspace(ctx context.Context, tx board.WorkspaceTx) (ledger.Record, error) {
	return call(ctx, s.get, func(st board.Store) (ledger.Record, error) { return st.UpdateWorkspace(ctx, tx) })
}

// PeopleStore.

// CreatePerson is board.Store's, answered once the store is open.
func (s *Store) CreatePerson(ctx context.Context, p board.Person, inv *board.Invitation) error {
	return do(ctx, s.get, func(st board.Store) error { return st.CreatePerson(ctx, p, inv) })
}

// GetPerson is board.Store's, answered by the store published early when
// the open has not finished (a credential check's read).
func (s *Store) GetPerson(ctx context.Context, handle string) (board.Person, error) {
	return call(ctx, s.forCredentials, func(st board.Store) (board.Person, error) { return st.GetPerson(ctx, handle) })
}

// ListPeople is board.Store's, answered once the store is open.
func (s *Store) ListPeople(ctx context.Context) ([]board.Person, error) {
	return call(ctx, s.get, func(st board.Store) ([]board.Person, error) { return st.ListPeople(ctx) })
}

// SetPersonDisabled is board.Store's, answered once the store is open.
func (s *Store) SetPersonDisabled(ctx context.Context, handle string, disabled bool, ev board.PersonEvent) error {
	return do(ctx, s.get, func(st board.Store) error { return st.SetPersonDisabled(ctx, handle, disabled, ev) })
}

// ListPersonEvents is board.Store's, answered once the store is open.
func (s *Store) ListPersonEvents(ctx context.Context, handle string, limit int) ([]board.PersonEvent, error) {
	return call(ctx, s.get, func(st board.Store) ([]board.PersonEvent, error) { return st.ListPersonEvents(ctx, handle, limit) })
}

// CreateInvitation is board.Store's, answered once the store is open.
func (s *Store) CreateInvitation(ctx context.Context, inv board.Invitation) error {
	return do(ctx, s.get, func(st board.Store) error { return st.CreateInvitation(ctx, inv) })
}

// GetInvitation is board.Store's, answered once the store is open.
func (s *Store) GetInvitation(ctx context.Context, tokenHash string, now time.Time) (board.Invitation, error) {
	return call(ctx, s.get, func(st board.Store) (board.Invitation, error) { return st.GetInvitation(ctx, tokenHash, now) })
}

// ListInvitations is board.Store's, answered once the store is open.
func (s *Store) ListInvitations(ctx context.Context, now time.Time) ([]board.Invitation, error) {
	return call(ctx, s.get, func(st board.Store) ([]board.Invitation, error) { return st.ListInvitations(ctx, now) })
}

// AcceptInvitation is board.Store's, answered once the store is open.
func (s *Store) AcceptInvitation(ctx context.Context, tokenHash, passwordHash string, now time.Time) (board.Person, error) {
	return call(ctx, s.get, func(st board.Store) (board.Person, error) {
		return st.AcceptInvitation(ctx, tokenHash, passwordHash, now)
	})
}

// DeleteInvitation is board.Store's, answered once the store is open.
func (s *Store) DeleteInvitation(ctx context.Context, tokenHash string) error {
	return do(ctx, s.get, func(st board.Store) error { return st.DeleteInvitation(ctx, tokenHash) })
}

// CreateSession is board.Store's, answered once the store is open.
func (s *Store) CreateSession(ctx context.Context, ses board.Session) error {
	return do(ctx, s.get, func(st board.Store) error { return st.CreateSession(ctx, ses) })
}

// GetSession is board.Store's, answered by the store published early when
// the open has not finished (a credential check's read).
func (s *Store) GetSession(ctx context.Context, idHash string, now time.Time) (board.Session, error) {
	return call(ctx, s.forCredentials, func(st board.Store) (board.Session, error) { return st.GetSession(ctx, idHash, now) })
}

// DeleteSession is board.Store's, answered once the store is open.
func (s *Store) DeleteSession(ctx context.Context, idHash string) error {
	return do(ctx, s.get, func(st board.Store) error { return st.DeleteSession(ctx, idHash) })
}

// ReserveSignInAttempt is board.Store's, answered once the store is open.
func (s *Store) ReserveSignInAttempt(ctx context.Context, handle string, a board.SignInAttempt, since time.Time, limit int) (int, bool, error) {
	st, err := s.get(ctx)
	if err != nil {
		return -1, false, err
	}
	return st.ReserveSignInAttempt(ctx, handle, a, since, limit)
}

// ReleaseSignInAttempt is board.Store's, answered once the store is open.
func (s *Store) ReleaseSignInAttempt(ctx context.Context, handle string, slot int, id string) error {
	return do(ctx, s.get, func(st board.Store) error { return st.ReleaseSignInAttempt(ctx, handle, slot, id) })
}

// TokenStore.

// CreateToken is board.Store's, answered once the store is open.
func (s *Store) CreateToken(ctx context.Context, t board.APIToken) error {
	return do(ctx, s.get, func(st board.Store) error { return st.CreateToken(ctx, t) })
}

// GetToken is board.Store's, answered by the store published early when
// the open has not finished (a credential check's read).
func (s *Store) GetToken(ctx context.Context, id string) (board.APIToken, error) {
	return call(ctx, s.forCredentials, func(st board.Store) (board.APIToken, error) { return st.GetToken(ctx, id) })
}

// ListTokens is board.Store's, answered once the store is open.
func (s *Store) ListTokens(ctx context.Context, handle string) ([]board.APIToken, error) {
	return call(ctx, s.get, func(st board.Store) ([]board.APIToken, error) { return st.ListTokens(ctx, handle) })
}

// RevokeToken is board.Store's, answered once the store is open.
func (s *Store) RevokeToken(ctx context.Context, id string, at time.Time) error {
	return do(ctx, s.get, func(st board.Store) error { return st.RevokeToken(ctx, id, at) })
}

// TouchToken is board.Store's, answered by the store published early when
// the open has not finished (a credential check's read).
func (s *Store) TouchToken(ctx context.Context, id string, at, staleBefore time.Time) error {
	return do(ctx, s.forCredentials, func(st board.Store) error { return st.TouchToken(ctx, id, at, staleBefore) })
}

// TaskStore.

// CreateTask is board.Store's, answered once the store is open.
func (s *Store) CreateTask(ctx context.Context, t board.Task, rows []json.RawMessage) error {
	return do(ctx, s.get, func(st board.Store) error { return st.CreateTask(ctx, t, rows) })
}

// GetTask is board.Store's, answered once the store is open.
func (s *Store) GetTask(ctx context.Context, id string, now time.Time) (board.Task, error) {
	return call(ctx, s.get, func(st board.Store) (board.Task, error) { return st.GetTask(ctx, id, now) })
}

// StagedRows is board.Store's, answered once the store is open.
func (s *Store) StagedRows(ctx context.Context, taskID string, from, n int) ([]json.RawMessage, error) {
	return call(ctx, s.get, func(st board.Store) ([]json.RawMessage, error) { return st.StagedRows(ctx, taskID, from, n) })
}

// ImportChunk is board.Store's, answered once the store is open.
func (s *Store) ImportChunk(ctx context.Context, tx board.ChunkTx) (board.Task, error) {
	return call(ctx, s.get, func(st board.Store) (board.Task, error) { return st.ImportChunk(ctx, tx) })
}

// UpdateTask is board.Store's, answered once the store is open.
func (s *Store) UpdateTask(ctx context.Context, t board.Task, from []board.TaskStatus) error {
	return do(ctx, s.get, func(st board.Store) error { return st.UpdateTask(ctx, t, from) })
}

// UnfinishedTasks is board.Store's, answered once the store is open.
func (s *Store) UnfinishedTasks(ctx context.Context, now time.Time) ([]board.Task, error) {
	return call(ctx, s.get, func(st board.Store) ([]board.Task, error) { return st.UnfinishedTasks(ctx, now) })
}

// OAuthStore.

// PutOAuthClient is board.Store's, answered once the store is open.
func (s *Store) PutOAuthClient(ctx context.Context, c board.OAuthClient) error {
	return do(ctx, s.get, func(st board.Store) error { return st.PutOAuthClient(ctx, c) })
}

// GetOAuthClient is board.Store's, answered once the store is open.
func (s *Store) GetOAuthClient(ctx context.Context, id string, now time.Time) (board.OAuthClient, error) {
	return call(ctx, s.get, func(st board.Store) (board.OAuthClient, error) { return st.GetOAuthClient(ctx, id, now) })
}

// CountOAuthRegistration is board.Store's, answered once the store is open.
func (s *Store) CountOAuthRegistration(ctx context.Context, window, keepUntil time.Time, limit int) (bool, error) {
	return call(ctx, s.get, func(st board.Store) (bool, error) { return st.CountOAuthRegistration(ctx, window, keepUntil, limit) })
}

// CreateOAuthCode is board.Store's, answered once the store is open.
func (s *Store) CreateOAuthCode(ctx context.Context, c board.OAuthCode) error {
	return do(ctx, s.get, func(st board.Store) error { return st.CreateOAuthCode(ctx, c) })
}

// GetOAuthCode is board.Store's, answered once the store is open.
func (s *Store) GetOAuthCode(ctx context.Context, hash string, now time.Time) (board.OAuthCode, error) {
	return call(ctx, s.get, func(st board.Store) (board.OAuthCode, error) { return st.GetOAuthCode(ctx, hash, now) })
}

// RedeemOAuthCode is board.Store's, answered once the store is open.
func (s *Store) RedeemOAuthCode(ctx context.Context, r board.OAuthRedemption) error {
	return do(ctx, s.get, func(st board.Store) error { return st.RedeemOAuthCode(ctx, r) })
}

// GetOAuthToken is board.Store's, answered by the store published early when
// the open has not finished (a credential check's read).
func (s *Store) GetOAuthToken(ctx context.Context, grantID, hash string) (board.OAuthToken, board.OAuthGrant, error) {
	st, err := s.forCredentials(ctx)
	if err != nil {
		return board.OAuthToken{}, board.OAuthGrant{}, err
	}
	return st.GetOAuthToken(ctx, grantID, hash)
}

// LookupCredential is board.Store's, answered by the store published early
// when the open has not finished (a credential check's read).
func (s *Store) LookupCredential(ctx context.Context, l board.CredentialLookup) (board.FoundCredential, error) {
	return call(ctx, s.forCredentials, func(st board.Store) (board.FoundCredential, error) { return st.LookupCredential(ctx, l) })
}

// RotateOAuthRefresh is board.Store's, answered once the store is open.
func (s *Store) RotateOAuthRefresh(ctx context.Context, r board.OAuthRotation) error {
	return do(ctx, s.get, func(st board.Store) error { return st.RotateOAuthRefresh(ctx, r) })
}

// GetOAuthGrant is board.Store's, answered once the store is open.
func (s *Store) GetOAuthGrant(ctx context.Context, id string) (board.OAuthGrant, error) {
	return call(ctx, s.get, func(st board.Store) (board.OAuthGrant, error) { return st.GetOAuthGrant(ctx, id) })
}

// ListOAuthGrants is board.Store's, answered once the store is open.
func (s *Store) ListOAuthGrants(ctx context.Context, handle string, now time.Time) ([]board.OAuthGrant, error) {
	return call(ctx, s.get, func(st board.Store) ([]board.OAuthGrant, error) { return st.ListOAuthGrants(ctx, handle, now) })
}

// RevokeOAuthGrant is board.Store's, answered once the store is open.
func (s *Store) RevokeOAuthGrant(ctx context.Context, id string, at time.Time) error {
	return do(ctx, s.get, func(st board.Store) error { return st.RevokeOAuthGrant(ctx, id, at) })
}

// TouchOAuthGrant is board.Store's, answered by the store published early when
// the open has not finished (a credential check's read).
func (s *Store) TouchOAuthGrant(ctx context.Context, id string, at, staleBefore time.Time) error {
	return do(ctx, s.forCredentials, func(st board.Store) error { return st.TouchOAuthGrant(ctx, id, at, staleBefore) })
}

// The server's own secrets.

// ServerSecret is board.Store's, answered once the store is open.
func (s *Store) ServerSecret(ctx context.Context, name string, candidate []byte) ([]byte, error) {
	return call(ctx, s.get, func(st board.Store) ([]byte, error) { return st.ServerSecret(ctx, name, candidate) })
}
