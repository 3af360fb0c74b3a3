package dynamo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Ticket numbers come from leased blocks (docs/dynamodb.md, "Ticket
// numbers"). Each workspace has a counter item (counterKey) that no
// transaction names: an instance leases a block of numbers with one
// single-item UpdateItem ADD on it and hands them out from memory, so a
// create's transaction touches no item that another instance's create
// touches. The counter only moves up, so a number is never handed out
// twice; numbers an instance leased and did not use are skipped (a gap).
// The ticket's own put stays conditional on its number being free.
const (
	// minBlock is the smallest block: the counter item takes at most one
	// write per minBlock creates.
	minBlock = 10
	// maxBlock bounds the numbers an instance that stops may leave unused.
	maxBlock = 100
	// fastBlock: a block used up within this time doubles the next one;
	// one that lasted longer than slowBlock halves it.
	fastBlock = 10 * time.Second
	slowBlock = time.Minute
)

// Attributes of the counter item.
const (
	attrCounterNext = "next"  // the first number not yet leased
	attrSlots       = "slots" // count-shard slots handed out (countshards.go)
)

// leases is what this instance holds of each workspace's counter: its
// block of numbers and its count-shard slots.
type leases struct {
	mu sync.Mutex
	ws map[string]*wsLease
}

type wsLease struct {
	next, end int64     // the numbers [next, end) are this instance's
	size      int64     // the size of the next block
	leasedAt  time.Time // when the current block was leased
	slots     []slot    // count-shard slots (countshards.go)
	floor     int64     // the counter is known to be at least this (imports raise it)
}

func (l *leases) of(slug string) *wsLease {
	if l.ws == nil {
		l.ws = map[string]*wsLease{}
	}
	w, ok := l.ws[slug]
	if !ok {
		w = &wsLease{size: minBlock}
		l.ws[slug] = w
	}
	return w
}

// nextNumber returns the next number of this instance's block of slug,
// leasing a block when it is used up; usedNumbers takes it once a commit
// used it. Callers hold the workspace's write lock, so an instance's
// creates in one workspace number in order.
func (s *Store) nextNumber(ctx context.Context, slug string) (int64, error) {
	if err := s.ensureNumbers(ctx, slug, 1); err != nil {
		return 0, err
	}
	return s.peekNumber(slug), nil
}

// usedNumbers marks the n numbers from first on used.
func (s *Store) usedNumbers(slug string, first, n int64) {
	s.leases.mu.Lock()
	defer s.leases.mu.Unlock()
	w := s.leases.of(slug)
	w.next = max(w.next, min(first+n, w.end))
}

// numbersLeft is how many numbers of slug this instance holds.
func (s *Store) numbersLeft(slug string) int64 {
	s.leases.mu.Lock()
	defer s.leases.mu.Unlock()
	w := s.leases.of(slug)
	return max(w.end-w.next, 0)
}

// ensureNumbers leases a block when this instance holds fewer than n
// numbers of slug (at least one). The block's size follows this
// instance's rate of creates in the workspace: minBlock at first, doubled
// (up to maxBlock) when the last block lasted less than fastBlock, halved
// when it lasted more than slowBlock, and never below n.
func (s *Store) ensureNumbers(ctx context.Context, slug string, n int64) error {
	n = max(n, 1)
	s.leases.mu.Lock()
	w := s.leases.of(slug)
	if w.end-w.next >= n {
		s.leases.mu.Unlock()
		return nil
	}
	now := time.Now()
	size := w.size
	if !w.leasedAt.IsZero() {
		switch used := now.Sub(w.leasedAt); {
		case used < fastBlock:
			size = min(2*size, maxBlock)
		case used > slowBlock:
			size = max(size/2, minBlock)
		}
	}
	size = max(size, n)
	// The lease takes a count-shard slot too when the write will need one
	// (countshards.go): one request instead of two. Not otherwise, so a
	// busy instance does not move along the slot sequence with its blocks.
	withSlot := w.freshSlot(now) < 0
	s.leases.mu.Unlock()

	end, slotSeq, err := s.leaseBlock(ctx, slug, size, withSlot)
	s.leases.mu.Lock()
	defer s.leases.mu.Unlock()
	if errors.Is(err, board.ErrNotFound) {
		delete(s.leases.ws, slug) // probing made-up slugs does not grow the map
	}
	if err != nil {
		return err
	}
	w = s.leases.of(slug)
	w.next, w.end, w.size, w.leasedAt = end-size, end, size, now
	if withSlot {
		w.addSlot(slotSeq, now)
	}
	return nil
}

// peekNumber is the next number of this instance's block of slug, which
// a write numbers its tickets from before it knows whether it commits
// (usedNumbers then takes them). Callers hold the workspace's write lock.
func (s *Store) peekNumber(slug string) int64 {
	s.leases.mu.Lock()
	defer s.leases.mu.Unlock()
	return s.leases.of(slug).next
}

// needsNumbers reports whether this instance holds no number of slug, so
// a create can send the lease beside its other reads.
func (s *Store) needsNumbers(slug string) bool {
	s.leases.mu.Lock()
	defer s.leases.mu.Unlock()
	w := s.leases.of(slug)
	return w.next >= w.end
}

// dropNumbers forgets this instance's block of slug (an import raised the
// counter past it, or a number in it was found taken).
func (s *Store) dropNumbers(slug string) {
	s.leases.mu.Lock()
	defer s.leases.mu.Unlock()
	w := s.leases.of(slug)
	w.next, w.end = 0, 0
}

// leaseBlock adds size to the counter, and with withSlot one to its slots,
// in one UpdateItem, and returns the counter after it (the block is
// [end-size, end)) and the slot sequence number this lease took. A missing
// counter is made from the workspace item first (initCounter).
func (s *Store) leaseBlock(ctx context.Context, slug string, size int64, withSlot bool) (end, slotSeq int64, err error) {
	update := "ADD #next :n"
	names := map[string]string{"#next": attrCounterNext}
	values := map[string]types.AttributeValue{":n": num(size)}
	if withSlot {
		update += ", #slots :one"
		names["#slots"], values[":one"] = attrSlots, num(1)
	}
	out, err := s.addToCounter(ctx, slug, update, names, values)
	if err != nil {
		return 0, 0, err
	}
	end = getN(out, attrCounterNext)
	if end-size > board.MaxTicketNumber {
		// Both stores keep one range of numbers, so a board moves either way.
		return 0, 0, board.Errorf(board.CodeConflict, "workspace %s has given out every ticket number it can (up to %d); create the ticket in another workspace", slug, int64(board.MaxTicketNumber))
	}
	return end, getN(out, attrSlots), nil
}

// addToCounter applies update to the workspace's counter item, which must
// exist (it is made from the workspace item when it does not), and
// returns the attributes it changed.
func (s *Store) addToCounter(ctx context.Context, slug, update string, names map[string]string, values map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	names["#pk"] = attrPK
	for attempt := 0; ; attempt++ {
		done, err := s.exclusiveWrite(ctx)
		if err != nil {
			return nil, err
		}
		out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                 aws.String(s.table),
			Key:                       counterKey(slug),
			UpdateExpression:          aws.String(update),
			ConditionExpression:       aws.String("attribute_exists(#pk)"),
			ExpressionAttributeNames:  names,
			ExpressionAttributeValues: values,
			ReturnValues:              types.ReturnValueUpdatedNew,
		})
		done()
		var ccf *types.ConditionalCheckFailedException
		switch {
		case err == nil:
			return out.Attributes, nil
		case !errors.As(err, &ccf):
			return nil, fmt.Errorf("dynamo: leasing from the counter of workspace %s: %w", slug, err)
		case attempt > 0:
			return nil, fmt.Errorf("dynamo: the counter of workspace %s is still missing after it was made", slug)
		}
		if err := s.initCounter(ctx, slug); err != nil {
			return nil, err
		}
	}
}

// initCounter makes a workspace's counter item from its workspace item's
// next_number (the counter of a workspace from before counter items, or 1),
// only if no instance made it meanwhile: then every number below is one an
// existing ticket may hold, and none is handed out again. ErrNotFound when
// the workspace does not exist.
func (s *Store) initCounter(ctx context.Context, slug string) error {
	item, err := s.getItem(ctx, workspaceKey(slug))
	if err != nil {
		return err
	}
	if item == nil {
		return board.ErrNotFound
	}
	// Refused: another instance made it, from the same item.
	if _, err := s.commit(ctx, []types.TransactWriteItem{s.newCounter(slug, max(decodeWorkspace(item).Next, 1))}); err != nil {
		return fmt.Errorf("dynamo: making the counter of workspace %s: %w", slug, err)
	}
	return nil
}

// newCounter puts a workspace's counter item at next, if it is absent: in
// the transaction that creates the workspace, or from an older workspace
// item (initCounter).
func (s *Store) newCounter(slug string, next int64) types.TransactWriteItem {
	counter := counterKey(slug)
	counter[attrCounterNext] = num(next)
	counter[attrSlots] = num(0)
	return s.put(counter, "attribute_not_exists(#pk)", absent, nil, false)
}

// counterNext reads where a workspace's counter stands (0: no counter item
// yet), for exports and imports.
func (s *Store) counterNext(ctx context.Context, slug string) (int64, error) {
	item, err := s.getItem(ctx, counterKey(slug))
	if err != nil || item == nil {
		return 0, err
	}
	return getN(item, attrCounterNext), nil
}

// raiseCounter moves a workspace's counter item up to next, never down,
// if it exists (a missing one is made later from the workspace item, which
// the caller raises too), and drops this instance's block when it lies
// below next.
func (s *Store) raiseCounter(ctx context.Context, slug string, next int64) error {
	done, err := s.exclusiveWrite(ctx)
	if err != nil {
		return err
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.table),
		Key:                       counterKey(slug),
		UpdateExpression:          aws.String("SET #next = :next"),
		ConditionExpression:       aws.String("attribute_exists(#pk) AND #next < :next"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK, "#next": attrCounterNext},
		ExpressionAttributeValues: map[string]types.AttributeValue{":next": num(next)},
	})
	done()
	var ccf *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &ccf) {
		return fmt.Errorf("dynamo: raising the counter of workspace %s: %w", slug, err)
	}
	s.leases.mu.Lock()
	defer s.leases.mu.Unlock()
	w := s.leases.of(slug)
	w.floor = max(w.floor, next)
	if w.next < next {
		w.next, w.end = 0, 0
	}
	return nil
}

// counterAtLeast reports whether this instance knows the counter of slug
// to be at next or above already.
func (s *Store) counterAtLeast(slug string, next int64) bool {
	s.leases.mu.Lock()
	defer s.leases.mu.Unlock()
	return s.leases.of(slug).floor >= next
}
