package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// openingStore is a store being opened. Every call waits until the store is
// open (or the caller gives up) and then goes to it. An open that fails is
// tried again by a later call, after a backoff that grows with each failure
// (with jitter, so instances that failed together do not retry in step);
// until then calls fail at once with the last failure. It lets a Lambda
// answer requests that need no store while DynamoDB is still being reached,
// and recover when a cold start could not reach it, instead of failing every
// call for the life of the instance.
type openingStore struct {
	open func(context.Context) (board.Store, error)
	base context.Context
	log  *slog.Logger
	now  func() time.Time

	mu    sync.Mutex
	store board.Store // set once open
	early board.Store // published before the open finished, for credential reads (openingstore_early.go)
	// published is closed when early is first set; nil for a store that
	// never publishes one (openInBackground).
	published chan struct{}
	attempt   chan struct{} // closed when the attempt in flight ends; nil if none
	err       error         // the last attempt's failure
	failures  int
	retryAt   time.Time // no new attempt before then
}

var _ board.Store = (*openingStore)(nil)

// Backoff between attempts to open the store, and the time one attempt
// may take.
const (
	openBackoffBase = time.Second
	openBackoffCap  = 30 * time.Second
	openTimeout     = 30 * time.Second
)

// openInBackground starts the first attempt and returns at once.
func openInBackground(ctx context.Context, open func(context.Context) (board.Store, error), log *slog.Logger) *openingStore {
	s := &openingStore{open: open, base: ctx, log: log, now: time.Now}
	s.mu.Lock()
	s.startLocked()
	s.mu.Unlock()
	return s
}

// startLocked starts an attempt; s.mu is held.
func (s *openingStore) startLocked() {
	done := make(chan struct{})
	s.attempt = done
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(s.base), openTimeout)
		st, err := s.open(ctx)
		cancel()
		s.mu.Lock()
		defer s.mu.Unlock()
		if err == nil {
			s.store, s.err = st, nil
		} else {
			s.failures++
			delay := min(openBackoffBase<<min(s.failures-1, 10), openBackoffCap)
			delay = delay/2 + rand.N(delay/2+1)
			s.retryAt = s.now().Add(delay)
			s.err = fmt.Errorf("the store could not be opened: %w", err)
			s.log.Error("the store could not be opened; calls that need it fail until a later call opens it",
				"err", err, "failures", s.failures, "next_attempt_after", delay)
		}
		s.attempt = nil
		close(done)
	}()
}

// get returns the open store. While an attempt runs it waits for it; after
// a failure it starts another attempt once the backoff has passed, and
// before that answers the last failure at once.
func (s *openingStore) get(ctx context.Context) (board.Store, error) {
	s.mu.Lock()
	if s.store != nil {
		st := s.store
		s.mu.Unlock()
		return st, nil
	}
	if s.attempt == nil {
		if s.now().Before(s.retryAt) {
			err := s.err
			s.mu.Unlock()
			return nil, err
		}
		s.startLocked()
	}
	wait := s.attempt
	s.mu.Unlock()
	select {
	case <-wait:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.store != nil {
		return s.store, nil
	}
	return nil, s.err
}

func (s *openingStore) ListWorkspaces(ctx context.Context) ([]board.Workspace, error) {
	st, err := s.get(ctx)
	if err != nil {
		return nil, err
	}
	return st.ListWorkspaces(ctx)
}

func (s *openingStore) GetWorkspace(ctx context.Context, slug string) (board.Workspace, error) {
	st, err := s.get(ctx)
	if err != nil {
		return board.Workspace{}, err
	}
	return st.GetWorkspace(ctx, slug)
}

func (s *openingStore) SetWorkspacePolicy(ctx context.Context, slug string, policy board.AIPolicy, ev board.Event) error {
	st, err := s.get(ctx)
	if err != nil {
		return err
	}
	return st.SetWorkspacePolicy(ctx, slug, policy, ev)
}

func (s *openingStore) ListTickets(ctx context.Context, q board.TicketQuery) (board.TicketPage, error) {
	st, err := s.get(ctx)
	if err != nil {
		return board.TicketPage{}, err
	}
	return st.ListTickets(ctx, q)
}

func (s *openingStore) ListEvents(ctx context.Context, workspace string, limit int) ([]board.Event, error) {
	st, err := s.get(ctx)
	if err != nil {
		return nil, err
	}
	return st.ListEvents(ctx, workspace, limit)
}

func (s *openingStore) GetRequest(ctx context.Context, key ledger.Key, now time.Time) (ledger.Record, error) {
	st, err := s.get(ctx)
	if err != nil {
		return ledger.Record{}, err
	}
	return st.GetRequest(ctx, key, now)
}

func (s *openingStore) LoadForWrite(ctx context.Context, key ledger.Key, ticketID string, now time.Time) (board.WriteContext, error) {
	st, err := s.get(ctx)
	if err != nil {
		return board.WriteContext{}, err
	}
	return st.LoadForWrite(ctx, key, ticketID, now)
}

func (s *openingStore) CreateTicket(ctx context.Context, tx board.CreateTx) (ledger.Record, error) {
	st, err := s.get(ctx)
	if err != nil {
		return ledger.Record{}, err
	}
	return st.CreateTicket(ctx, tx)
}

func (s *openingStore) SaveTicket(ctx context.Context, tx board.SaveTx) (ledger.Record, error) {
	st, err := s.get(ctx)
	if err != nil {
		return ledger.Record{}, err
	}
	return st.SaveTicket(ctx, tx)
}

func (s *openingStore) ClaimRequest(ctx context.Context, rec ledger.Record, now time.Time) error {
	st, err := s.get(ctx)
	if err != nil {
		return err
	}
	return st.ClaimRequest(ctx, rec, now)
}

func (s *openingStore) CompleteRequest(ctx context.Context, key ledger.Key, owner string, result []byte) error {
	st, err := s.get(ctx)
	if err != nil {
		return err
	}
	return st.CompleteRequest(ctx, key, owner, result)
}

func (s *openingStore) ReleaseRequest(ctx context.Context, key ledger.Key, owner string) error {
	st, err := s.get(ctx)
	if err != nil {
		return err
	}
	return st.ReleaseRequest(ctx, key, owner)
}

func (s *openingStore) WorkspacePolicy(ctx context.Context, slug string) (board.AIPolicy, error) {
	st, err := s.get(ctx)
	if err != nil {
		return "", err
	}
	return st.WorkspacePolicy(ctx, slug)
}

func (s *openingStore) Ping(ctx context.Context) error {
	st, err := s.get(ctx)
	if err != nil {
		return err
	}
	return st.Ping(ctx)
}

func (s *openingStore) CreateTask(ctx context.Context, t board.Task, rows []json.RawMessage) error {
	st, err := s.get(ctx)
	if err != nil {
		return err
	}
	return st.CreateTask(ctx, t, rows)
}

func (s *openingStore) GetTask(ctx context.Context, id string, now time.Time) (board.Task, error) {
	st, err := s.get(ctx)
	if err != nil {
		return board.Task{}, err
	}
	return st.GetTask(ctx, id, now)
}

func (s *openingStore) StagedRows(ctx context.Context, taskID string, from, n int) ([]json.RawMessage, error) {
	st, err := s.get(ctx)
	if err != nil {
		return nil, err
	}
	return st.StagedRows(ctx, taskID, from, n)
}

func (s *openingStore) ImportChunk(ctx context.Context, tx board.ChunkTx) (board.Task, error) {
	st, err := s.get(ctx)
	if err != nil {
		return board.Task{}, err
	}
	return st.ImportChunk(ctx, tx)
}

func (s *openingStore) UpdateTask(ctx context.Context, t board.Task, from []board.TaskStatus) error {
	st, err := s.get(ctx)
	if err != nil {
		return err
	}
	return st.UpdateTask(ctx, t, from)
}

func (s *openingStore) UnfinishedTasks(ctx context.Context, now time.Time) ([]board.Task, error) {
	st, err := s.get(ctx)
	if err != nil {
		return nil, err
	}
	return st.UnfinishedTasks(ctx, now)
}

// Close waits for an attempt in flight, then closes what was opened.
func (s *openingStore) Close() error {
	s.mu.Lock()
	wait := s.attempt
	s.mu.Unlock()
	if wait != nil {
		<-wait
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.store == nil {
		return nil
	}
	return s.store.Close()
}

func (s *openingStore) ReadTicket(ctx context.Context, q board.TicketRead) (board.TicketActivity, error) {
	st, err := s.get(ctx)
	if err != nil {
		return board.TicketActivity{}, err
	}
	return st.ReadTicket(ctx, q)
}

func (s *openingStore) ListNotes(ctx context.Context, q board.ActivityQuery) (board.NotePage, error) {
	st, err := s.get(ctx)
	if err != nil {
		return board.NotePage{}, err
	}
	return st.ListNotes(ctx, q)
}

func (s *openingStore) ListHistory(ctx context.Context, q board.ActivityQuery) (board.EventPage, error) {
	st, err := s.get(ctx)
	if err != nil {
		return board.EventPage{}, err
	}
	return st.ListHistory(ctx, q)
}

func (s *openingStore) ReadSummary(ctx context.Context, q board.SummaryQuery) (board.SummaryRead, error) {
	st, err := s.get(ctx)
	if err != nil {
		return board.SummaryRead{}, err
	}
	return st.ReadSummary(ctx, q)
}
