package dynamo

import (
	"context"
	"sync"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// A create answers its similar tickets, found before the transaction
// (board.CreateTx.LookUp) and stored with the result in the request
// record; a replay is answered from the record alone. The lookup is two
// round trips (a Query per title word, at once, then one BatchGetItem), so
// a create first rules out the replays it can see without it:
//   - a request this instance has committed or answered before
//     (answeredRequests) is read back with one consistent GetItem of its
//     record: a warm replay is that one request;
//   - an AI caller's create reads the record with the workspace's policy
//     (startCreate), beside the lookup: the answer is the record's.
// Any other replay (a person's, on an instance that never saw the request)
// pays the lookup and then finds the record when the transaction's
// condition on it fails: the answer is still the record's.

// maxAnswered bounds answeredRequests: enough for the retries of the
// calls an instance served in the last minutes; older ones still replay
// correctly, at the cost of the lookup.
const maxAnswered = 1024

// answeredRequests is the keys of the create requests this instance has
// committed or answered, the oldest forgotten first. It is a hint of
// where to look first, never an answer: the record itself is read.
type answeredRequests struct {
	mu    sync.Mutex
	keys  map[string]struct{}
	order []string // ring of keys, oldest at next
	next  int
}

func (a *answeredRequests) add(k ledger.Key) {
	pk := getS(requestKey(k), attrPK)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.keys == nil {
		a.keys = make(map[string]struct{}, maxAnswered)
	}
	if _, ok := a.keys[pk]; ok {
		return
	}
	if len(a.order) < maxAnswered {
		a.order = append(a.order, pk)
	} else {
		delete(a.keys, a.order[a.next])
		a.order[a.next] = pk
		a.next = (a.next + 1) % maxAnswered
	}
	a.keys[pk] = struct{}{}
}

func (a *answeredRequests) has(k ledger.Key) bool {
	pk := getS(requestKey(k), attrPK)
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.keys[pk]
	return ok
}

// beforeCreate answers the replays it can find in one request (see above),
// else makes the create's own reads at once: the similar tickets
// (tx.LookUp) and an AI caller's record and policy (startCreate). Both run
// outside the workspace's lock, so they never wait for another create, and
// side by side, so a warm create stays three round trips: the lookup's
// Queries (with the policy read), its BatchGetItem, the transaction. The
// lease of a block of numbers is not among them: leases go out under the
// workspace's lock (nextNumber), so an instance's concurrent creates share
// one block and leave no gaps but its end.
func (s *Store) beforeCreate(ctx context.Context, tx board.CreateTx, now time.Time) error {
	if s.answered.has(tx.Request.Key) {
		item, err := s.getItem(ctx, requestKey(tx.Request.Key))
		if err != nil {
			return err
		}
		rec, _, err := s.liveRecord(ctx, item, now)
		if err != nil {
			return err
		}
		if rec != nil {
			return &ledger.ExistsError{Record: *rec}
		}
		// Expired since: the key is free again, this is a create.
	}
	var readErr error
	var wg sync.WaitGroup
	wg.Go(func() { readErr = s.startCreate(ctx, tx, now) })
	if tx.LookUp != nil {
		tx.LookUp(ctx)
	}
	wg.Wait()
	return readErr
}
