package dynamo_test

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
)

// The SDK's retryer, as the store configures it, retries throttling and a
// single-item write that met a transaction, and never a refusal by a
// condition (that is an answer) nor a transaction that met another (the
// store retries those itself, outside the retry quota).
func TestRetryerRetriesThrottlingNotConditionsNorTransactionConflicts(t *testing.T) {
	r := dynamo.NewRetryer()
	if got := r.MaxAttempts(); got != dynamo.RetryMaxAttempts {
		t.Errorf("MaxAttempts = %d, want %d", got, dynamo.RetryMaxAttempts)
	}
	cancelled := func(codes ...string) error {
		e := &types.TransactionCanceledException{Message: aws.String("cancelled")}
		for _, c := range codes {
			e.CancellationReasons = append(e.CancellationReasons, types.CancellationReason{Code: aws.String(c)})
		}
		return e
	}
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"transaction conflict (the store retries it)", cancelled("None", "TransactionConflict"), false},
		{"throttled transaction", cancelled("ThrottlingError", "None"), true},
		{"single item meets a transaction", &types.TransactionConflictException{Message: aws.String("in flight")}, true},
		{"throttled request", &types.ProvisionedThroughputExceededException{Message: aws.String("slow down")}, true},
		{"condition failed in a transaction", cancelled("ConditionalCheckFailed", "None"), false},
		{"condition failed beside a conflict", cancelled("ConditionalCheckFailed", "TransactionConflict"), false},
		{"single-item condition failed", &types.ConditionalCheckFailedException{Message: aws.String("no")}, false},
		{"validation", cancelled("ValidationError"), false},
		{"anything else", errors.New("boom"), false},
	} {
		if got := r.IsErrorRetryable(c.err); got != c.want {
			t.Errorf("%s: retryable = %v, want %v", c.name, got, c.want)
		}
	}
}
