package dynamo_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// throttlingEndpoint answers every request as DynamoDB does for a table
// over its throughput, and counts the requests it got.
func throttlingEndpoint(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	var requests atomic.Int64
	srv := httptest.NewServer(testbackends.WithCRC32(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		requests.Add(1)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",`+
			`"message":"The level of configured provisioned throughput for the table was exceeded."}`)
	})))
	t.Cleanup(srv.Close)
	return srv.URL, &requests
}

// noWait keeps every decision of the retryer it wraps (what is retried,
// how many attempts, the retry quota) and waits nothing between attempts,
// so the test spends the quota in milliseconds instead of minutes.
type noWait struct{ aws.Retryer }

func (noWait) RetryDelay(int, error) (time.Duration, error) { return 0, nil }

// TestRetryQuotaStopsRetries: the client the store builds (NewClient,
// with NewRetryer) has the SDK's retry quota on. Against an endpoint that
// throttles everything, calls retry (RetryMaxAttempts each) while the quota
// lasts; once it is spent a call is sent once, not retried, and fails with
// the quota error beside the throttling, so a throttled table is not
// hammered by every instance's full set of retries. The other DynamoDB
// tests turn the quota off (fastRetries): their faults are on purpose.
func TestRetryQuotaStopsRetries(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	url, requests := throttlingEndpoint(t)
	ctx := context.Background()
	client, err := dynamo.NewClient(ctx, dynamo.ClientConfig{Endpoint: url, Region: "us-east-1",
		Options: []func(*dynamodb.Options){func(o *dynamodb.Options) { o.Retryer = noWait{o.Retryer} }}})
	if err != nil {
		t.Fatal(err)
	}
	get := func() error {
		_, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("t"),
			Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "k"}}})
		return err
	}

	// The SDK's bucket: each retry after a throttle costs
	// DefaultThrottlingRetryCost of DefaultRetryRateTokens, and a failed
	// attempt gives nothing back.
	retries := int(retry.DefaultRetryRateTokens / retry.DefaultThrottlingRetryCost)
	fullCalls := retries / (dynamo.RetryMaxAttempts - 1)
	if fullCalls < 1 {
		t.Fatalf("the quota (%d retries) does not cover one call's retries; the test's arithmetic needs revisiting", retries)
	}
	for i := range fullCalls {
		err := get()
		var quota ratelimit.QuotaExceededError
		if errors.As(err, &quota) {
			t.Fatalf("call %d: the quota ran out after %d requests, want %d full calls of %d attempts first: %v",
				i+1, requests.Load(), fullCalls, dynamo.RetryMaxAttempts, err)
		}
		var maxAttempts *retry.MaxAttemptsError
		if !errors.As(err, &maxAttempts) {
			t.Fatalf("call %d: %v, want the SDK to give up after its attempts", i+1, err)
		}
	}
	if got, want := requests.Load(), int64(fullCalls*dynamo.RetryMaxAttempts); got != want {
		t.Fatalf("%d requests for %d calls, want %d (%d attempts each)", got, fullCalls, want, dynamo.RetryMaxAttempts)
	}

	// The quota is spent (what is left, if anything, is less than one
	// throttled call's retries): the next calls stop retrying.
	left := retries - fullCalls*(dynamo.RetryMaxAttempts-1)
	before := requests.Load()
	err = get()
	var quota ratelimit.QuotaExceededError
	if !errors.As(err, &quota) {
		t.Fatalf("after %d throttled calls: %v, want the retry quota's error (%T)", fullCalls, err, quota)
	}
	var throttled *types.ProvisionedThroughputExceededException
	if !errors.As(err, &throttled) {
		t.Errorf("the quota error hides the throttling that caused it: %v", err)
	}
	if got, want := requests.Load()-before, int64(left+1); got != want {
		t.Fatalf("the call that met the spent quota sent %d requests, want %d (the first attempt and the %d retries left)", got, want, left)
	}
	before = requests.Load()
	if err := get(); !errors.As(err, &quota) {
		t.Fatalf("another call with the quota spent: %v, want the retry quota's error", err)
	}
	if got := requests.Load() - before; got != 1 {
		t.Fatalf("a call with the quota spent sent %d requests, want 1 (no retry)", got)
	}
}
