package dynamo

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// maxAttempts bounds the store's own retries of one write, which are only
// for what a condition said: a record that expired between a write and the
// read that followed, a ticket number found taken. Transient
// failures are the SDK's retryer's (retry.go), inside each attempt.
const maxAttempts = 25

// cancellation is why DynamoDB refused a transaction: the conditions that
// failed. Refusals for contention or throttling never get here: the SDK
// retries them (NewRetryer), and what it gave up on is an error.
type cancellation struct {
	// failed[i]: item i's condition was false.
	failed map[int]bool
	// old[i]: the item as it was, when the endpoint returned it (ALL_OLD).
	old map[int]map[string]types.AttributeValue
	// codes lists every reason, for errors.
	codes []string
}

func (c *cancellation) failedAt(i int) bool { return c != nil && c.failed[i] }

// commit sends one atomic write. It returns (nil, nil) when it committed, a
// cancellation when a condition refused it, and an error for anything else,
// a transient failure the SDK's retryer gave up on included. A single Put
// goes out as PutItem, which costs half the write capacity of a transaction
// and answers the same way.
//
// A transaction cancelled only because it met another transaction on one
// of its items (TransactionConflict) is sent again here, after a jittered
// backoff, until s.raceFor has passed: nothing of it was applied, and every
// item carries the condition its builder relied on, so if the other write
// changed what this one assumed, the next attempt is refused by that
// condition and the caller builds the write again from the item returned
// (ALL_OLD). The SDK's retryer leaves these conflicts alone (retry.go): each
// of its retries costs tokens of the client's retry quota, and on a busy
// workspace conflicts would spend the quota until every failure, conflict
// or not, reached the caller as an internal error.
func (s *Store) commit(ctx context.Context, items []types.TransactWriteItem) (*cancellation, error) {
	return s.commitFresh(ctx, items, nil)
}

// commitFresh is commit for a write computed from an item that other
// writes change (a ticket at the version the change was computed from).
// After each conflict, before the write goes out again, stillValid reads
// that item afresh: when the write that held it committed, this one can
// only fail its condition, so it is not sent again but ends with
// stillValid's error (ErrVersionConflict: the use case reads again and
// recomputes). Sent again stale, it would hold the ticket for a whole
// transaction only to be refused, and on a busy ticket such doomed writes
// take the turns of the writes that could commit, until a caller runs out
// of budget. So the budget runs out only when the item stayed held and
// unchanged for all of it: no write on it committed meanwhile.
func (s *Store) commitFresh(ctx context.Context, items []types.TransactWriteItem, stillValid func(context.Context) error) (*cancellation, error) {
	giveUp := time.Now().Add(s.raceFor)
	if d, ok := ctx.Value(writeDeadlineKey{}).(time.Time); ok && d.Before(giveUp) {
		giveUp = d // the call's own loop started the clock earlier
	}
	for attempt := 0; ; attempt++ {
		c, err := s.sendWrite(ctx, items)
		var met *conflictError
		if !errors.As(err, &met) {
			return c, err
		}
		if time.Now().After(giveUp) {
			return nil, outOfBudget(s.raceFor)
		}
		if err := backoff(ctx, attempt); err != nil {
			return nil, err
		}
		if stillValid != nil {
			if err := stillValid(ctx); err != nil {
				return nil, err
			}
		}
	}
}

// outOfBudget is the answer to a write that kept meeting other writes on
// its items for its whole budget: a conflict the caller can retry, not an
// internal failure; nothing of it was written.
func outOfBudget(budget time.Duration) error {
	return board.Errorf(board.CodeConflict, "other writes kept holding the items of this write (the same ticket or workspace) for %s; nothing was written by this call. Retry it later (with the same request_id, if it has one)", budget)
}

// writeDeadlineKey marks a context whose write loop (a create's) has its
// own deadline, which commit's retries must not outlast: one call's
// retries, of whatever kind, stay within one budget.
type writeDeadlineKey struct{}

func withWriteDeadline(ctx context.Context, d time.Time) context.Context {
	return context.WithValue(ctx, writeDeadlineKey{}, d)
}

// conflictError: a transaction was cancelled only for meeting others
// (TransactionConflict), nothing of it applied.
type conflictError struct {
	codes []string
	err   error
}

func (e *conflictError) Error() string {
	return fmt.Sprintf("dynamo: transaction met another on its items: %v: %v", e.codes, e.err)
}
func (e *conflictError) Unwrap() error { return e.err }

// sendWrite sends the write once, alone on the endpoint when writes are
// serialized (exclusiveWrite).
func (s *Store) sendWrite(ctx context.Context, items []types.TransactWriteItem) (*cancellation, error) {
	done, err := s.exclusiveWrite(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	if len(items) == 1 && items[0].Put != nil {
		return s.putOne(ctx, items[0].Put)
	}
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	if err == nil {
		return nil, nil
	}
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return nil, err
	}
	c := &cancellation{failed: map[int]bool{}, old: map[int]map[string]types.AttributeValue{}}
	conflicts := 0
	var other error
	for i, r := range tce.CancellationReasons {
		code := aws.ToString(r.Code)
		c.codes = append(c.codes, code)
		switch code {
		case "", "None":
		case "ConditionalCheckFailed":
			c.failed[i] = true
			if len(r.Item) > 0 {
				c.old[i] = r.Item
			}
		case "TransactionConflict":
			conflicts++
		default: // throttling the SDK stopped retrying, ValidationError, …
			other = fmt.Errorf("dynamo: transaction refused: %v: %w", c.codes, err)
		}
	}
	switch {
	case other != nil:
		return nil, other
	case len(c.failed) > 0:
		// A refused condition is the answer, whatever else met others.
		return c, nil
	case conflicts > 0:
		return nil, &conflictError{codes: c.codes, err: err}
	}
	return nil, fmt.Errorf("dynamo: transaction cancelled without a reason: %w", err)
}

func (s *Store) putOne(ctx context.Context, p *types.Put) (*cancellation, error) {
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                           p.TableName,
		Item:                                p.Item,
		ConditionExpression:                 p.ConditionExpression,
		ExpressionAttributeNames:            p.ExpressionAttributeNames,
		ExpressionAttributeValues:           p.ExpressionAttributeValues,
		ReturnValuesOnConditionCheckFailure: p.ReturnValuesOnConditionCheckFailure,
	})
	if err == nil {
		return nil, nil
	}
	return conditionFailed(err)
}

// conditionFailed turns a single-item ConditionalCheckFailedException into a
// cancellation of item 0; any other error is returned as it is.
func conditionFailed(err error) (*cancellation, error) {
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		return nil, err
	}
	c := &cancellation{failed: map[int]bool{0: true}, old: map[int]map[string]types.AttributeValue{}, codes: []string{"ConditionalCheckFailed"}}
	if len(ccf.Item) > 0 {
		c.old[0] = ccf.Item
	}
	return c, nil
}

// commitBackoff spaces the store's own retries of a write (a conflict, a
// condition to re-read): DynamoDB round trips are tens of
// milliseconds, so it starts and ends later than the use cases' loop.
var commitBackoff = board.Backoff{Base: 10 * time.Millisecond, Cap: 500 * time.Millisecond}

func backoff(ctx context.Context, n int) error { return commitBackoff.Wait(ctx, n) }

// newTxID names one attempt of one write.
func newTxID() string {
	var b [12]byte
	_, _ = crand.Read(b[:]) // never fails (crypto/rand panics instead)
	return hex.EncodeToString(b[:])
}

func (s *Store) put(item map[string]types.AttributeValue, cond string, names map[string]string, values map[string]types.AttributeValue, returnOld bool) types.TransactWriteItem {
	p := &types.Put{TableName: aws.String(s.table), Item: item}
	if cond != "" {
		p.ConditionExpression = aws.String(cond)
		p.ExpressionAttributeNames = names
		p.ExpressionAttributeValues = values
	}
	if returnOld {
		p.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	return types.TransactWriteItem{Put: p}
}
