package dynamo

import (
	"sync"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// workspaceCache remembers, per workspace, what this process last learned:
// the next ticket number (so a create needs no read before its transaction:
// one round trip when warm) and the ai_policy with the ticket counts per
// status (so a read needs no second request while they are fresh, and a
// list can give its total). The counts follow this process's own commits;
// another instance's show once the entry is read again, within PolicyTTL,
// as lists from DynamoDB's indexes are themselves eventually consistent. A wrong guess costs a retry, never
// correctness: the create transaction checks the counter and the policy.
type workspaceCache struct {
	now func() time.Time // Config.Now: tests move it to check PolicyTTL
	mu  sync.Mutex
	ws  map[string]*cachedWorkspace
	// adjusted counts this process's own changes to the cached counts
	// (moved, countsUnknown). A read of a workspace item made before such a
	// change can arrive after it; its counts then lack the change and must
	// not replace the adjusted ones (remember).
	adjusted uint64
}

type cachedWorkspace struct {
	next     int64 // 0: unknown
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
	return c.adjusted
}

// remember stores what a read of the workspace item said; since is the
// epoch taken before the read was sent. If this process adjusted any
// cached counts in between, the read may predate that commit: its counts
// are not kept (the next reader reads them again), so an adjustment is
// never lost to a read that overtook it.
func (c *workspaceCache) remember(w workspaceState, since uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entry(w.Workspace.Slug)
	e.policy, e.policyAt = w.Workspace.AIPolicy, c.now()
	if c.adjusted != since {
		e.counts = nil
	} else {
		e.counts = make(map[board.Status]int, len(board.Statuses))
		for st, n := range w.Workspace.Counts {
			e.counts[st] = n
		}
	}
	// A read made before a commit of ours can arrive after it: never move
	// the counter back.
	e.next = max(e.next, w.Next)
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

// moved records one ticket of this process's commit leaving status from
// ("" for a new ticket) for status to.
func (c *workspaceCache) moved(slug string, from, to board.Status) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entry(slug)
	if from == to {
		return
	}
	c.adjusted++
	if e.counts == nil {
		return
	}
	if from != "" {
		e.counts[from]--
	}
	e.counts[to]++
}

// countsUnknown forgets the counts after a commit whose effect on them
// this process cannot tell (an import, an attempt that may have committed).
func (c *workspaceCache) countsUnknown(slug string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.adjusted++
	c.entry(slug).counts = nil
}

func (c *workspaceCache) next(slug string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entry(slug).next
}

// setNext records the counter as DynamoDB reported it (or as our own
// commit left it). Unlike remember it may move back: a counter that
// failed a condition is known to be wrong.
func (c *workspaceCache) setNext(slug string, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entry(slug).next = n
}

// forget drops a workspace found not to exist, so probing made-up slugs
// does not grow the cache.
func (c *workspaceCache) forget(slug string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.ws, slug)
}
