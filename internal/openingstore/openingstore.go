// Package openingstore is a store that opens in the background: it stands
// for the one store a Lambda instance hands every consumer (Backend:
// board.Store for the use cases, auth.Store and oauth.Store for sign-in and
// the authorization server) before that store is reachable. Every
// call waits until the store is open (or the caller gives up) and then goes
// to it. An open that fails is tried again by a later call, after a backoff
// that grows with each failure (with jitter, so instances that failed
// together do not retry in step); until then calls fail at once with the
// last failure. It lets a Lambda answer requests that need no store while
// DynamoDB is still being reached, and recover when a cold start could not
// reach it, instead of failing every call for the life of the instance.
package openingstore

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/oauth"
)

// Backend is what an open store serves: the contracts of the consumers
// the composition root hands it to. A board mover is no part of it: the
// commands that move a board open their stores themselves.
type Backend interface {
	board.Store
	board.InboxStore
	auth.Store
	oauth.Store
}

// Store is a store being opened (see the package comment). Its methods are
// Backend's, forwarded once the store is open (forward.go, forwardauth.go,
// forwardoauth.go).
type Store struct {
	open func(context.Context) (Backend, error)
	base context.Context
	log  *slog.Logger
	now  func() time.Time

	mu    sync.Mutex
	store Backend // set once open
	early Backend // published before the open finished, for credential reads (early.go)
	// published is closed when early is first set; nil for a store that
	// never publishes one (InBackground).
	published chan struct{}
	attempt   chan struct{} // closed when the attempt in flight ends; nil if none
	err       error         // the last attempt's failure
	failures  int
	retryAt   time.Time // no new attempt before then
}

var (
	_ board.Store = (*Store)(nil)
	_ auth.Store  = (*Store)(nil)
	_ oauth.Store = (*Store)(nil)
	_ Backend     = (*Store)(nil)
)

// Backoff between attempts to open the store, and the time one attempt
// may take. MaxBackoff is the longest a failed open keeps calls failing
// before a call tries again.
const (
	backoffBase = time.Second
	MaxBackoff  = 30 * time.Second
	openTimeout = 30 * time.Second
)

// InBackground starts the first attempt to open the store and returns at
// once. Attempts run under ctx's values but not its cancellation, each for
// at most openTimeout; log gets each failure.
func InBackground(ctx context.Context, open func(context.Context) (Backend, error), log *slog.Logger) *Store {
	s := &Store{open: open, base: ctx, log: log, now: time.Now}
	s.mu.Lock()
	s.startLocked()
	s.mu.Unlock()
	return s
}

// startLocked starts an attempt; s.mu is held.
func (s *Store) startLocked() {
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
			delay := min(backoffBase<<min(s.failures-1, 10), MaxBackoff)
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
func (s *Store) get(ctx context.Context) (Backend, error) {
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

// Close waits for an attempt in flight, then closes what was opened.
func (s *Store) Close() error {
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

// call is one forwarded method: f on the store pick gives (s.get, or
// s.forCredentials for a credential check's reads), or pick's failure.
func call[T any](ctx context.Context, pick func(context.Context) (Backend, error), f func(Backend) (T, error)) (T, error) {
	st, err := pick(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	return f(st)
}

// do is call for the methods that return only an error.
func do(ctx context.Context, pick func(context.Context) (Backend, error), f func(Backend) error) error {
	st, err := pick(ctx)
	if err != nil {
		return err
	}
	return f(st)
}
