package dynamo

import (
	"sync"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// workspaceCache remembers, per workspace, what this process last read of
// it: the ai_policy and the ticket counts per status, so a read needs no
// second request while they are fresh (PolicyTTL), and a list can give its
// total. Writes never rely on it: a write reads the policy consistently at
// its start (create.go, reads.go). The counts are never adjusted here: a
// commit of this process that changes them drops them (countsChanged), and
// the next reader reads them again, so what is cached is always a sum
// DynamoDB returned, at most PolicyTTL old; another instance's writes show
// within that time.
type workspaceCache struct {
	now func() time.Time // Config.Now: tests move it to check PolicyTTL
	mu  sync.Mutex
	ws  map[string]*cachedWorkspace
	// changed counts this process's commits that changed counts
	// (countsChanged). A read made before such a commit can arrive after
	// it; its counts then lack the change and are not kept (remember).
	changed uint64
}

type cachedWorkspace struct {
	policy   board.AIPolicy
	policyAt time.Time            // when the policy was read; zero: unknown
	counts   map[board.Status]int // nil: unknown, read again before use
}

func newWorkspaceCache(now func() time.Time) *workspaceCache {
	return &workspaceCache{now: now, ws: map[string]*cachedWorkspace{}}
}

// entry returns the workspace's entry; callers hold c.mu.
func (c *workspaceCache) entry(slug string) *cachedWorkspace {
	e, ok := c.ws[slug]
	if !ok {
		e = &cachedWorkspace{}
		c.ws[slug] = e
	}
	return e
}

// epoch is the value a reader takes before it sends a read of a workspace
// item, to hand to remember with what the read said.
func (c *workspaceCache) epoch() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed
}

// remember stores what a read of the workspace said; since is the epoch
// taken before the read was sent. If a commit of this process changed
// counts in between, the read may predate it: its counts are not kept (the
// next reader reads them again).
func (c *workspaceCache) remember(w workspaceState, since uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entry(w.Workspace.Slug)
	e.policy, e.policyAt = w.Workspace.AIPolicy, c.now()
	if c.changed != since || w.Workspace.Counts == nil {
		e.counts = nil
	} else {
		e.counts = make(map[board.Status]int, len(board.Statuses))
		for st, n := range w.Workspace.Counts {
			e.counts[st] = n
		}
	}
}

// policyOnly returns the cached policy if it was read within ttl, whether
// or not the counts are known.
func (c *workspaceCache) policyOnly(slug string, ttl time.Duration) (board.AIPolicy, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.ws[slug]
	if !ok || e.policyAt.IsZero() || c.now().Sub(e.policyAt) >= ttl {
		return "", false
	}
	return e.policy, true
}

func (c *workspaceCache) setPolicy(slug string, p board.AIPolicy) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entry(slug)
	e.policy, e.policyAt = p, c.now()
}

// policy returns the cached policy and a copy of the counts if both are
// known and were read within ttl. Counts unknown (after a commit whose
// effect on them is not known) send the caller to the item, so whether a
// list has a total never depends on what this process happened to cache.
func (c *workspaceCache) policy(slug string, ttl time.Duration) (board.AIPolicy, map[board.Status]int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.ws[slug]
	if !ok || e.policyAt.IsZero() || e.counts == nil || c.now().Sub(e.policyAt) >= ttl {
		return "", nil, false
	}
	counts := make(map[board.Status]int, len(e.counts))
	for st, n := range e.counts {
		if n != 0 {
			counts[st] = n
		}
	}
	return e.policy, counts, true
}

// countsChanged drops the counts after a commit of this process that
// changed them (or may have: an attempt that may have committed).
func (c *workspaceCache) countsChanged(slug string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.changed++
	if e, ok := c.ws[slug]; ok {
		e.counts = nil
	}
}

// forget drops a workspace found not to exist, so probing made-up slugs
// does not grow the cache.
func (c *workspaceCache) forget(slug string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.ws, slug)
}
