package dynamo_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	miniserver "github.com/truora/minidyn/server"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/obs"
)

// A request's record counts every request the client sent to DynamoDB for
// it — each attempt, the SDK's retries included, exactly as many as the
// endpoint received — and the throttles and transaction conflicts among
// their answers.
func TestStoreRequestsAreCountedPerRequest(t *testing.T) {
	var inj *injector
	var received atomic.Int64
	ep := newMinidyn(t, func(h http.Handler) http.Handler {
		inj = newInjector(h.(*miniserver.Server))
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			received.Add(1)
			inj.ServeHTTP(w, r)
		})
	})
	inj.table = tableName()
	o := dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(ep.url),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""), Retryer: dynamo.NewRetryer(fastRetries)}
	dynamo.ObserveRequests(&o)
	s, err := dynamo.Open(context.Background(), dynamo.Config{Client: dynamodb.New(o), Table: inj.table, CreateTable: true})
	if err != nil {
		t.Fatal(err)
	}
	svc := newService(t, s)

	inj.arm("TransactWriteItems", faultThrottle, faultTxConflict, faultThrottle)
	rec := obs.NewRequest("req-test")
	ctx := obs.NewContext(board.WithPrincipal(context.Background(), board.Principal{Author: "ai:counter", Source: board.SourceMCP}), rec)
	before := received.Load()
	if _, err := svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: "count-1", Workspace: "inbox", NewTicket: board.NewTicket{Title: "counted"}}); err != nil {
		t.Fatal(err)
	}
	sent := received.Load() - before
	if got := rec.StoreRequests(); got != sent || sent < 4 {
		t.Errorf("the record counts %d store requests; the endpoint received %d (want equal, and at least the 3 refused attempts and the commit)", got, sent)
	}
	throttles, conflicts := rec.StoreThrottles(), rec.StoreConflicts()
	if throttles != 2 || conflicts != 1 {
		t.Errorf("throttles %d, conflicts %d; want 2 and 1", throttles, conflicts)
	}
	// Outside a request (no record in the context) nothing is counted and
	// nothing fails.
	if _, err := svc.ListWorkspaces(board.WithPrincipal(context.Background(), board.Principal{Author: "ai:counter"})); err != nil {
		t.Fatal(err)
	}
}
