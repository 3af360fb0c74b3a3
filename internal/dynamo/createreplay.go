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
//   - an instance whose counter is cold reads the record with the
//     workspace (warmForCreate): a cold replay is that one request.
// Any other replay (a warm instance that never saw the request) pays the
// lookup and then finds the record when the transaction's condition on
// it fails: the answer is still the record's.

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
// else makes the create's own reads (tx.LookUp) before the transaction is
// built. A cold counter is read here as well, outside the workspace's
// lock, so the lookup never waits for another create.
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
	if s.cache.next(tx.Workspace) == 0 {
		if err := s.warmForCreate(ctx, tx, now); err != nil {
			return err
		}
	}
	if tx.LookUp != nil {
		tx.LookUp(ctx)
	}
	return nil
}
