package dynamo_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	miniserver "github.com/truora/minidyn/server"

	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// endpoint is a DynamoDB-compatible server the tests run against.
type endpoint struct {
	name string
	url  string
	// mini is set for minidyn, whose failure emulation fault tests use.
	mini *miniserver.Server
}

// minidyn serves the DynamoDB API in-process, so `go test` needs nothing
// installed. Each call starts its own server: minidyn's table map is not
// guarded against concurrent CreateTable/DeleteTable, and tests run in
// parallel.
func minidyn(t testing.TB) endpoint {
	return newMinidyn(t, func(h http.Handler) http.Handler { return h })
}

// newMinidyn is a private minidyn behind handler wrap, for tests that
// inject faults into the HTTP exchange.
func newMinidyn(t testing.TB, wrap func(http.Handler) http.Handler) endpoint {
	m := testbackends.StartMinidyn(t, wrap)
	return endpoint{name: "minidyn", url: m.URL, mini: m.Server}
}

// moto is the moto endpoint, under the one policy every suite shares: a
// skip with the reason when none is named, a failure under make test.
func moto(t testing.TB) endpoint {
	t.Helper()
	return endpoint{name: "moto", url: testbackends.MotoEndpoint(t)}
}

// backend is one endpoint kind the tests run against; newEndpoint gives a
// fresh minidyn server per call, or the one moto server (skipping the
// subtest with its reason when there is none).
type backend struct {
	name        string
	newEndpoint func(t testing.TB) endpoint
}

// endpoints lists what the tests run against: minidyn and moto, always
// both, so a missing moto shows as a skipped subtest, never as nothing.
func endpoints() []backend {
	return []backend{{"minidyn", minidyn}, {"moto", moto}}
}

// testClient is a client for ep with a request counter and the store's own
// retry rules (NewRetryer), tuned for tests: short backoff and no retry
// quota (fault tests fail many requests on purpose; TestRetryQuotaStopsRetries
// checks the quota of the client the store builds).
func testClient(t testing.TB, ep endpoint, counter *dynamo.RequestCounter) *dynamodb.Client {
	t.Helper()
	o := dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(ep.url),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		Retryer:      dynamo.NewRetryer(fastRetries),
	}
	if counter != nil {
		counter.Register(&o)
	}
	return dynamodb.New(o)
}

// fastRetries keeps the store's attempt count and retry rules and shortens
// the waits between attempts.
func fastRetries(so *retry.StandardOptions) {
	so.MaxBackoff = 20 * time.Millisecond
	so.BaseDelay = time.Millisecond
	so.RateLimiter = ratelimit.None
}

// tableName is fresh per call, so tests sharing a server share nothing.
func tableName() string { return testbackends.TableName() }

// openStore creates a fresh table on ep and opens a store on it; the table
// is dropped when the test ends.
func openStore(t testing.TB, ep endpoint, counter *dynamo.RequestCounter, cfg dynamo.Config) *dynamo.Store {
	t.Helper()
	client := testClient(t, ep, counter)
	if cfg.Table == "" {
		cfg.Table = tableName()
	}
	cfg.Client, cfg.CreateTable = client, true
	s, err := dynamo.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Open on %s: %v", ep.name, err)
	}
	t.Cleanup(func() {
		_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(cfg.Table)})
	})
	return s
}
