package main

import (
	"context"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The token half of board.Store, delegated like the rest of openingStore.

func (s *openingStore) CreateToken(ctx context.Context, t board.APIToken) error {
	st, err := s.get(ctx)
	if err != nil {
		return err
	}
	return st.CreateToken(ctx, t)
}

func (s *openingStore) GetToken(ctx context.Context, id string) (board.APIToken, error) {
	st, err := s.forCredentials(ctx)
	if err != nil {
		return board.APIToken{}, err
	}
	return st.GetToken(ctx, id)
}

func (s *openingStore) ListTokens(ctx context.Context, handle string) ([]board.APIToken, error) {
	st, err := s.get(ctx)
	if err != nil {
		return nil, err
	}
	return st.ListTokens(ctx, handle)
}

func (s *openingStore) RevokeToken(ctx context.Context, id string, at time.Time) error {
	st, err := s.get(ctx)
	if err != nil {
		return err
	}
	return st.RevokeToken(ctx, id, at)
}

func (s *openingStore) TouchToken(ctx context.Context, id string, at, staleBefore time.Time) error {
	st, err := s.forCredentials(ctx)
	if err != nil {
		return err
	}
	return st.TouchToken(ctx, id, at, staleBefore)
}
