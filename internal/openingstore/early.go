package openingstore

import (
	"context"
	"log/slog"
	"time"
)

// A store that is still opening may be able to serve some reads already.
// The DynamoDB store is usable as soon as its client is built, and its open
// then seeds the default workspaces (one read of the table, and puts when
// they are missing). A credential check (a session or token, then its
// person) reads none of them: InBackgroundEarly lets those reads go to
// the store the open published early, so a cold start's first request
// checks its credential while the seeding read is still on the wire, not
// after it. Everything else waits for the open, as before.

// InBackgroundEarly is InBackground for an open that may publish the store
// early (through the function it is given) for credential reads.
func InBackgroundEarly(ctx context.Context, open func(ctx context.Context, early func(Backend)) (Backend, error),
	log *slog.Logger) *Store {
	s := &Store{base: ctx, log: log, now: time.Now, published: make(chan struct{})}
	s.open = func(ctx context.Context) (Backend, error) { return open(ctx, s.publishEarly) }
	s.mu.Lock()
	s.startLocked()
	s.mu.Unlock()
	return s
}

func (s *Store) publishEarly(st Backend) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.early == nil {
		close(s.published)
	}
	s.early = st
}

// forCredentials is the store for the reads of a credential check: the
// early one once it is published (waiting for that while the attempt that
// may publish it runs), else the open one (waiting for the open).
func (s *Store) forCredentials(ctx context.Context) (Backend, error) {
	s.mu.Lock()
	early, attempt := s.early, s.attempt
	s.mu.Unlock()
	if early == nil && s.published != nil && attempt != nil {
		select {
		case <-s.published:
		case <-attempt: // ended without publishing: the open decides
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		s.mu.Lock()
		early = s.early
		s.mu.Unlock()
	}
	if early != nil {
		return early, nil
	}
	return s.get(ctx)
}
