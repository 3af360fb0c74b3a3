package dynamo

import (
	"context"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// readableWorkspace decides a read's policy before the read touches a
// ticket: from the cache when the policy was read within PolicyTTL (no
// request), otherwise by a consistent GetItem of the workspace (one request
// before the read's own). ErrNotFound when the workspace does not exist;
// *board.PolicyError when its policy is not in readable. So a ticket the
// caller may not see costs no more than an absent one: nothing of it is read.
func (s *Store) readableWorkspace(ctx context.Context, slug string, readable []board.AIPolicy) (board.AIPolicy, error) {
	policy, err := s.WorkspacePolicy(ctx, slug)
	if err != nil {
		return "", err
	}
	return policy, board.CheckPolicy(readable, policy)
}

// WorkspacePolicy answers from the cache when the policy was read within
// PolicyTTL (no request), otherwise with one consistent GetItem of the
// workspace item.
func (s *Store) WorkspacePolicy(ctx context.Context, slug string) (board.AIPolicy, error) {
	if p, ok := s.cache.policyOnly(slug, s.policyTTL); ok {
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
	p := decodeWorkspace(item).Workspace.AIPolicy
	s.cache.setPolicy(slug, p)
	return p, nil
}

// workspacePolicyCounts is WorkspacePolicy with the ticket counts: from
// the cache when both are fresh, otherwise one consistent Query of the
// workspace with its count shards.
func (s *Store) workspacePolicyCounts(ctx context.Context, slug string) (board.AIPolicy, map[board.Status]int, error) {
	if p, counts, ok := s.cache.policy(slug, s.policyTTL); ok {
		return p, counts, nil
	}
	since := s.cache.epoch()
	w, ok, err := s.readWorkspace(ctx, slug)
	if err != nil {
		return "", nil, err
	}
	if !ok {
		s.cache.forget(slug)
		return "", nil, board.ErrNotFound
	}
	s.cache.remember(w, since)
	return w.Workspace.AIPolicy, w.Workspace.Counts, nil
}
