package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// openingStore is a store still being opened. Every call waits until the
// store is open (or the caller gives up) and then goes to it; if opening
// failed, every call reports why. It lets a Lambda answer requests that need
// no store while DynamoDB is still being reached.
type openingStore struct {
	ready chan struct{}
	store board.Store
	err   error
}

var _ board.Store = (*openingStore)(nil)

// openInBackground starts open and returns at once.
func openInBackground(ctx context.Context, open func(context.Context) (board.Store, error), log *slog.Logger) *openingStore {
	s := &openingStore{ready: make(chan struct{})}
	go func() {
		defer close(s.ready)
		s.store, s.err = open(ctx)
		if s.err != nil {
			log.Error("the store could not be opened; every call that needs it fails until the function restarts", "err", s.err)
			s.err = fmt.Errorf("the store could not be opened (%w); nothing was written, retry later with the same request_id", s.err)
		}
	}()
	return s
}

func (s *openingStore) get(ctx context.Context) (board.Store, error) {
	select {
	case <-s.ready:
		return s.store, s.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
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

func (s *openingStore) GetTicketDetail(ctx context.Context, id string) (board.TicketDetail, board.AIPolicy, error) {
	st, err := s.get(ctx)
	if err != nil {
		return board.TicketDetail{}, "", err
	}
	return st.GetTicketDetail(ctx, id)
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

// Close waits for the opening to end, then closes what was opened.
func (s *openingStore) Close() error {
	<-s.ready
	if s.store == nil {
		return nil
	}
	return s.store.Close()
}
