package dynamo

import (
	"context"
	"sync"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// withPolicy runs read while it finds the workspace's policy: from the
// cache when read within PolicyTTL (one request in all), otherwise by a
// consistent GetItem sent at the same time as read (two requests, one round
// trip of latency). exists is false when the workspace does not exist.
func (s *Store) withPolicy(ctx context.Context, slug string, read func(context.Context) error) (policy board.AIPolicy, exists bool, err error) {
	if p, ok := s.cache.policy(slug, s.policyTTL); ok {
		return p, true, read(ctx)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var readErr error
	wg.Go(func() {
		readErr = read(ctx)
		if readErr != nil {
			cancel() // the policy is not needed any more
		}
	})
	item, getErr := s.getItem(ctx, workspaceKey(slug))
	if getErr != nil {
		cancel()
	}
	wg.Wait()
	switch {
	case readErr != nil:
		return "", false, readErr
	case getErr != nil:
		return "", false, getErr
	case item == nil:
		s.cache.forget(slug)
		return "", false, nil
	}
	w := decodeWorkspace(item)
	s.cache.remember(w)
	return w.Workspace.AIPolicy, true, nil
}

// WorkspacePolicy answers from the cache when the policy was read within
// PolicyTTL (no request), otherwise with one consistent GetItem.
func (s *Store) WorkspacePolicy(ctx context.Context, slug string) (board.AIPolicy, error) {
	if p, ok := s.cache.policy(slug, s.policyTTL); ok {
		return p, nil
	}
	item, err := s.getItem(ctx, workspaceKey(slug))
	if err != nil {
		return "", err
	}
	if item == nil {
		s.cache.forget(slug)
		return "", board.ErrNotFound
	}
	w := decodeWorkspace(item)
	s.cache.remember(w)
	return w.Workspace.AIPolicy, nil
}
