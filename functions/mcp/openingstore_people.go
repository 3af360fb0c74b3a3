package main

import (
	"context"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// The people and workspace-writer halves of board.Store, delegated like the
// rest of openingStore.

func (s *openingStore) CreatePerson(ctx context.Context, p board.Person, inv *board.Invitation) error {
	st, err := s.get(ctx)
	if err != nil {
		return err
	}
	return st.CreatePerson(ctx, p, inv)
}

func (s *openingStore) GetPerson(ctx context.Context, handle string) (board.Person, error) {
	st, err := s.forCredentials(ctx)
	if err != nil {
		return board.Person{}, err
	}
	return st.GetPerson(ctx, handle)
}

func (s *openingStore) ListPeople(ctx context.Context) ([]board.Person, error) {
	st, err := s.get(ctx)
	if err != nil {
		return nil, err
	}
	return st.ListPeople(ctx)
}

func (s *openingStore) SetPersonDisabled(ctx context.Context, handle string, disabled bool, ev board.PersonEvent) error {
	st, err := s.get(ctx)
	if err != nil {
		return err
	}
	return st.SetPersonDisabled(ctx, handle, disabled, ev)
}

func (s *openingStore) ListPersonEvents(ctx context.Context, handle string, limit int) ([]board.PersonEvent, error) {
	st, err := s.get(ctx)
	if err != nil {
		return nil, err
	}
	return st.ListPersonEvents(ctx, handle, limit)
}

func (s *openingStore) CreateInvitation(ctx context.Context, inv board.Invitation) error {
	st, err := s.get(ctx)
	if err != nil {
		return err
	}
	return st.CreateInvitation(ctx, inv)
}

func (s *openingStore) GetInvitation(ctx context.Context, tokenHash string, now time.Time) (board.Invitation, error) {
	st, err := s.get(ctx)
	if err != nil {
		return board.Invitation{}, err
	}
	return st.GetInvitation(ctx, tokenHash, now)
}

func (s *openingStore) ListInvitations(ctx context.Context, now time.Time) ([]board.Invitation, error) {
	st, err := s.get(ctx)
	if err != nil {
		return nil, err
	}
	return st.ListInvitations(ctx, now)
}

func (s *openingStore) AcceptInvitation(ctx context.Context, tokenHash, passwordHash string, now time.Time) (board.Person, error) {
	st, err := s.get(ctx)
	if err != nil {
		return board.Person{}, err
	}
	return st.AcceptInvitation(ctx, tokenHash, passwordHash, now)
}

func (s *openingStore) DeleteInvitation(ctx context.Context, tokenHash string) error {
	st, err := s.get(ctx)
	if err != nil {
		return err
	}
	return st.DeleteInvitation(ctx, tokenHash)
}

func (s *openingStore) CreateSession(ctx context.Context, ses board.Session) error {
	st, err := s.get(ctx)
	if err != nil {
		return err
	}
	return st.CreateSession(ctx, ses)
}

func (s *openingStore) GetSession(ctx context.Context, idHash string, now time.Time) (board.Session, error) {
	st, err := s.forCredentials(ctx)
	if err != nil {
		return board.Session{}, err
	}
	return st.GetSession(ctx, idHash, now)
}

func (s *openingStore) DeleteSession(ctx context.Context, idHash string) error {
	st, err := s.get(ctx)
	if err != nil {
		return err
	}
	return st.DeleteSession(ctx, idHash)
}

func (s *openingStore) ReserveSignInAttempt(ctx context.Context, handle string, a board.SignInAttempt, since time.Time, limit int) (int, bool, error) {
	st, err := s.get(ctx)
	if err != nil {
		return -1, false, err
	}
	return st.ReserveSignInAttempt(ctx, handle, a, since, limit)
}

func (s *openingStore) ReleaseSignInAttempt(ctx context.Context, handle string, slot int, id string) error {
	st, err := s.get(ctx)
	if err != nil {
		return err
	}
	return st.ReleaseSignInAttempt(ctx, handle, slot, id)
}

func (s *openingStore) CreateWorkspace(ctx context.Context, tx board.WorkspaceTx) (ledger.Record, error) {
	st, err := s.get(ctx)
	if err != nil {
		return ledger.Record{}, err
	}
	return st.CreateWorkspace(ctx, tx)
}

func (s *openingStore) UpdateWorkspace(ctx context.Context, tx board.WorkspaceTx) (ledger.Record, error) {
	st, err := s.get(ctx)
	if err != nil {
		return ledger.Record{}, err
	}
	return st.UpdateWorkspace(ctx, tx)
}
