package dynamo

import (
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Who retries what (docs/architecture.md, "Retries"): transient failures
// (throttling, 5xx, dropped connections, a single-item write that met a
// transaction) are the SDK's retryer's, configured here and nowhere else.
// The store's own loops retry what a condition told them (a ticket number
// found taken, a record that expired between a write and a read) and a transaction that met
// another on one of its items (commit.go); when the SDK
// gives up, or its retry quota is spent, the call fails with that error
// instead of starting the SDK's retries all over again.
const (
	// RetryMaxAttempts is how many times the SDK sends one request at most.
	RetryMaxAttempts = 6
	// RetryMaxBackoff caps the SDK's (jittered, exponential) wait between
	// two attempts; six attempts stay well inside Lambda's 29 s.
	RetryMaxBackoff = 2 * time.Second
)

// NewRetryer is the retryer every client of the store uses: the SDK's
// standard one (exponential backoff with jitter, a retry quota) with
// RetryMaxAttempts and RetryMaxBackoff, which also retries a single-item
// write that met a transaction. opts adjust it further (tests shorten the
// waits).
func NewRetryer(opts ...func(*retry.StandardOptions)) aws.Retryer {
	return retry.NewStandard(func(so *retry.StandardOptions) {
		so.MaxAttempts = RetryMaxAttempts
		so.MaxBackoff = RetryMaxBackoff
		so.Retryables = append(so.Retryables, retry.IsErrorRetryableFunc(transientConflict))
		for _, o := range opts {
			o(so)
		}
	})
}

// transientConflict reports the refusals DynamoDB answers for contention
// rather than for anything in the request, which the SDK retries: a
// single-item write that met a transaction in flight
// (TransactionConflictException), and a transaction cancelled for
// throttling. A transaction cancelled for meeting another transaction
// (TransactionConflict) is the store's own to retry (commit.go): each SDK
// retry costs retry-quota tokens, and conflicts on a busy workspace would
// spend the quota. A transaction that any condition refused is not
// retryable either: that is an answer, and the store reads it.
func transientConflict(err error) aws.Ternary {
	var conflict *types.TransactionConflictException
	if errors.As(err, &conflict) {
		return aws.TrueTernary
	}
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return aws.UnknownTernary
	}
	transient := false
	for _, r := range tce.CancellationReasons {
		switch aws.ToString(r.Code) {
		case "", "None":
		case "ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded":
			transient = true
		default: // TransactionConflict (the store's), ConditionalCheckFailed, ValidationError, …
			return aws.FalseTernary
		}
	}
	if transient {
		return aws.TrueTernary
	}
	return aws.UnknownTernary
}
