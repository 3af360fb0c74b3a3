package dynamo

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// maxAttempts bounds the store's own retries of one write (transaction
// conflicts, a moved counter, a record that expired between two reads). The
// SDK's retryer handles throttling and 5xx first, inside each attempt.
const maxAttempts = 25

// cancellation is why DynamoDB refused a transaction.
type cancellation struct {
	// failed[i]: item i's condition was false.
	failed map[int]bool
	// old[i]: the item as it was, when the endpoint returned it (ALL_OLD).
	old map[int]map[string]types.AttributeValue
	// retry: refused for contention or throttling, not for a condition;
	// the same write may succeed when sent again.
	retry bool
	// codes lists every reason, for errors.
	codes []string
}

func (c *cancellation) failedAt(i int) bool { return c != nil && c.failed[i] }

// commit sends one atomic write. It returns (nil, nil) when it committed, a
// cancellation when a condition or contention refused it, and an error for
// anything else. A single Put goes out as PutItem, which costs half the
// write capacity of a transaction and answers the same way.
func (s *Store) commit(ctx context.Context, items []types.TransactWriteItem) (*cancellation, error) {
	done, err := s.writeTurn(ctx)
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
		return retryableOrFail(err)
	}
	c := &cancellation{failed: map[int]bool{}, old: map[int]map[string]types.AttributeValue{}}
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
		case "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded":
			c.retry = true
		default: // ValidationError, ItemCollectionSizeLimitExceeded, …
			return nil, fmt.Errorf("dynamo: transaction refused: %v: %w", c.codes, err)
		}
	}
	if len(c.failed) == 0 && !c.retry {
		return nil, fmt.Errorf("dynamo: transaction cancelled without a reason: %w", err)
	}
	return c, nil
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
// cancellation of item 0.
func conditionFailed(err error) (*cancellation, error) {
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		return retryableOrFail(err)
	}
	c := &cancellation{failed: map[int]bool{0: true}, old: map[int]map[string]types.AttributeValue{}, codes: []string{"ConditionalCheckFailed"}}
	if len(ccf.Item) > 0 {
		c.old[0] = ccf.Item
	}
	return c, nil
}

// retryableOrFail: an error the SDK gave up retrying (throttling, 5xx, a
// dropped connection) is retried a little more here. That is safe because
// every write carries its request record: if an earlier attempt committed,
// the next one finds the record with its own txid and reports success.
func retryableOrFail(err error) (*cancellation, error) {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	// A single-item write that meets a transaction in flight on the same
	// item gets TransactionConflictException, which the SDK does not retry.
	var conflict *types.TransactionConflictException
	if errors.As(err, &conflict) || retry.IsErrorRetryables(retry.DefaultRetryables).IsErrorRetryable(err).Bool() {
		return &cancellation{retry: true, codes: []string{err.Error()}}, nil
	}
	return nil, err
}

// backoff waits before attempt n+1: exponential with full jitter, capped, so
// instances that collided do not collide again in step.
func backoff(ctx context.Context, n int) error {
	limit := min(10*time.Millisecond<<min(n, 6), 500*time.Millisecond)
	t := time.NewTimer(time.Duration(rand.Int64N(int64(limit)) + int64(time.Millisecond)))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

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
