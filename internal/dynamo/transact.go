package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// The write core (docs/dynamodb.md, "The write core"): every write the
// store makes in one transaction goes through transact, which builds it,
// sends it (commit: a conflict is sent again after a backoff, or, for a
// write computed from an item others change, judged from a fresh read
// first) and reads what refused it. What a refusal means is the write's own
// (judge); how often it is tried, and how long it waits, is decided here
// once.

// step is what a refused attempt tells transact to do next.
type step int

const (
	// stepBackoff: the refusal taught the builder nothing; wait, then
	// build and send again.
	stepBackoff step = iota
	// stepAgain: a condition told the builder something (a record that
	// expired meanwhile, a number found taken): build and send again now.
	stepAgain
	// stepDone: the refusal is the answer, which judge kept; nothing more
	// is sent.
	stepDone
)

// txn is one write for transact.
type txn struct {
	// what names the write in the error of one that never got through.
	what string
	// build lays out one attempt; txid names it (its request record's).
	build func(txid string) ([]types.TransactWriteItem, error)
	// sent, if set, runs after each attempt's answer, committed or not
	// (it gives back what build took, such as a count-shard slot).
	sent func()
	// judge reads a refusal; an error ends the write with it.
	judge func(ctx context.Context, c *cancellation) (step, error)
	// stillValid, if set, reads afresh whether the write can still commit
	// before a conflicted attempt is sent again (commitFresh).
	stillValid func(context.Context) error
}

// transact sends w until it commits (true), judge calls its refusal the
// answer (false), or an error ends it. It tries at most maxAttempts times.
func (s *Store) transact(ctx context.Context, w txn) (committed bool, err error) {
	for attempt := 0; attempt < maxAttempts; attempt++ {
		items, err := w.build(newTxID())
		if err != nil {
			return false, err
		}
		c, err := s.commitFresh(ctx, items, w.stillValid)
		if w.sent != nil {
			w.sent()
		}
		switch {
		case err != nil:
			return false, err
		case c == nil:
			return true, nil
		}
		next, err := w.judge(ctx, c)
		switch {
		case err != nil:
			return false, err
		case next == stepDone:
			return false, nil
		case next == stepAgain:
			continue
		}
		if err := backoff(ctx, attempt); err != nil {
			return false, err
		}
	}
	return false, fmt.Errorf("dynamo: %s kept being refused after %d attempts; nothing was written by this call", w.what, maxAttempts)
}

// ownRecord judges a write's request record that a condition refused (old:
// the item the cancellation returned, if any) for the write whose attempts
// tries lists: the record an earlier attempt stored is the answer
// (stepDone with it), another call's is an ExistsError, and a key found
// free again is written again at once.
func (s *Store) ownRecord(ctx context.Context, key ledger.Key, old map[string]types.AttributeValue, now time.Time, tries writeAttempts) (*ledger.Record, recordVerdict, step, error) {
	verdict, held, err := s.existingRecord(ctx, key, old, now, tries)
	switch {
	case err != nil:
		return nil, verdict, stepDone, err
	case verdict == recordOurs:
		return held, verdict, stepDone, nil
	case verdict == recordTaken:
		return nil, verdict, stepDone, &ledger.ExistsError{Record: *held}
	}
	return nil, verdict, stepAgain, nil
}

// errCommittedEarlier ends a write whose own earlier attempt, its answer
// lost, is found committed while the write waits to be sent again.
var errCommittedEarlier = errors.New("dynamo: an earlier attempt of this write committed")

// committedEarlier reads key's request record consistently and answers it
// when one of the write's own attempts (tries) stored it, nil otherwise.
func (s *Store) committedEarlier(ctx context.Context, key ledger.Key, now time.Time, tries writeAttempts) (*ledger.Record, error) {
	verdict, held, err := s.existingRecord(ctx, key, nil, now, tries)
	if err != nil || verdict != recordOurs {
		return nil, err
	}
	return held, nil
}
