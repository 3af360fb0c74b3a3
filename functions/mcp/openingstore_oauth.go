package main

import (
	"context"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The OAuth half of board.Store, delegated like the rest of openingStore.

func (s *openingStore) PutOAuthClient(ctx context.Context, c board.OAuthClient) error {
	st, err := s.get(ctx)
	if err != nil {
		return err
	}
	return st.PutOAuthClient(ctx, c)
}

func (s *openingStore) CountOAuthRegistration(ctx context.Context, window, keepUntil time.Time, limit int) (bool, error) {
	st, err := s.get(ctx)
	if err != nil {
		return false, err
	}
	return st.CountOAuthRegistration(ctx, window, keepUntil, limit)
}

func (s *openingStore) GetOAuthClient(ctx context.Context, id string, now time.Time) (board.OAuthClient, error) {
	st, err := s.get(ctx)
	if err != nil {
		return board.OAuthClient{}, err
	}
	return st.GetOAuthClient(ctx, id, now)
}

func (s *openingStore) CreateOAuthCode(ctx context.Context, c board.OAuthCode) error {
	st, err := s.get(ctx)
	if err != nil {
		return err
	}
	return st.CreateOAuthCode(ctx, c)
}

func (s *openingStore) GetOAuthCode(ctx context.Context, hash string, now time.Time) (board.OAuthCode, error) {
	st, err := s.get(ctx)
	if err != nil {
		return board.OAuthCode{}, err
	}
	return st.GetOAuthCode(ctx, hash, now)
}

func (s *openingStore) RedeemOAuthCode(ctx context.Context, r board.OAuthRedemption) error {
	st, err := s.get(ctx)
	if err != nil {
		return err
	}
	return st.RedeemOAuthCode(ctx, r)
}

func (s *openingStore) GetOAuthToken(ctx context.Context, grantID, hash string) (board.OAuthToken, board.OAuthGrant, error) {
	st, err := s.forCredentials(ctx)
	if err != nil {
		return board.OAuthToken{}, board.OAuthGrant{}, err
	}
	return st.GetOAuthToken(ctx, grantID, hash)
}

func (s *openingStore) RotateOAuthRefresh(ctx context.Context, r board.OAuthRotation) error {
	st, err := s.get(ctx)
	if err != nil {
		return err
	}
	return st.RotateOAuthRefresh(ctx, r)
}

func (s *openingStore) GetOAuthGrant(ctx context.Context, id string) (board.OAuthGrant, error) {
	st, err := s.get(ctx)
	if err != nil {
		return board.OAuthGrant{}, err
	}
	return st.GetOAuthGrant(ctx, id)
}

func (s *openingStore) ListOAuthGrants(ctx context.Context, handle string, now time.Time) ([]board.OAuthGrant, error) {
	st, err := s.get(ctx)
	if err != nil {
		return nil, err
	}
	return st.ListOAuthGrants(ctx, handle, now)
}

func (s *openingStore) RevokeOAuthGrant(ctx context.Context, id string, at time.Time) error {
	st, err := s.get(ctx)
	if err != nil {
		return err
	}
	return st.RevokeOAuthGrant(ctx, id, at)
}

func (s *openingStore) TouchOAuthGrant(ctx context.Context, id string, at, staleBefore time.Time) error {
	st, err := s.forCredentials(ctx)
	if err != nil {
		return err
	}
	return st.TouchOAuthGrant(ctx, id, at, staleBefore)
}
