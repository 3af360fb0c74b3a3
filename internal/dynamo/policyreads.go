package dynamo

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// An AI caller's write is refused when its workspace's policy does not
// allow it, as the policy stood when the write started: a write that starts
// after a policy change was acknowledged is refused on every instance.
// The policy is read with a strongly consistent read at the start of the
// write, beside the write's other reads, instead of being checked inside
// the transaction: a ConditionCheck on the workspace item in every write
// would make that one item part of every transaction of the workspace,
// and DynamoDB cancels transactions that meet on an item (docs/dynamodb.md).
//
// An update, move or note reads it in LoadForWrite (one BatchGetItem with
// the record and the ticket); SaveTicket, called next for the same
// request, takes that reading here instead of reading again.
const policyReadFor = 10 * time.Second // how long a LoadForWrite reading serves its SaveTicket

type policyReads struct {
	mu    sync.Mutex
	reads map[ledger.Key]policyRead
}

type policyRead struct {
	policy board.AIPolicy
	at     time.Time
}

// put keeps what LoadForWrite read for key, and forgets readings no
// SaveTicket took in time (a replay, a refused call).
func (p *policyReads) put(k ledger.Key, policy board.AIPolicy) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if p.reads == nil {
		p.reads = map[ledger.Key]policyRead{}
	}
	if len(p.reads) > 64 {
		for old, r := range p.reads {
			if now.Sub(r.at) > policyReadFor {
				delete(p.reads, old)
			}
		}
	}
	p.reads[k] = policyRead{policy: policy, at: now}
}

// take returns and forgets the reading for key, if a fresh one is there.
func (p *policyReads) take(k ledger.Key) (board.AIPolicy, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.reads[k]
	delete(p.reads, k)
	if !ok || time.Since(r.at) > policyReadFor {
		return "", false
	}
	return r.policy, true
}

// writePolicy refuses a write whose workspace's policy is not in allowed:
// from the reading LoadForWrite made for this request, or a consistent
// GetItem of the workspace. A request already recorded answers before the
// policy does (its record is what a retry gets), so a refusal reads the
// record first.
func (s *Store) writePolicy(ctx context.Context, req ledger.Record, slug string, allowed []board.AIPolicy) error {
	policy, ok := s.policyReads.take(req.Key)
	if !ok {
		item, err := s.getItem(ctx, workspaceKey(slug))
		if err != nil {
			return err
		}
		if item == nil {
			return board.ErrNotFound
		}
		policy = decodeWorkspace(item).Workspace.AIPolicy
		s.cache.setPolicy(slug, policy)
	}
	refused := board.CheckPolicy(allowed, policy)
	var denied *board.PolicyError
	if !errors.As(refused, &denied) {
		return refused
	}
	if rec, err := s.GetRequest(ctx, req.Key, req.CreatedAt); err == nil {
		return &ledger.ExistsError{Record: rec}
	}
	return refused
}
