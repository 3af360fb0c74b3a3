package dynamo_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamotest"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
)

// conflicted is an endpoint under a model of DynamoDB's transaction
// conflicts (dynamotest.Injector): every store opened on it sends through
// the same injector, so the instances share its lock table, and each has
// its own client with the production retryer, retry quota included, as a
// Lambda instance has. On moto the injector gives the endpoint one write at
// a time (in place of SerializeWrites, behind which nothing could overlap).
type conflicted struct {
	ep    endpoint
	in    *dynamotest.Injector
	table string
}

func newConflicted(t testing.TB, ep endpoint) *conflicted {
	c := &conflicted{ep: ep, in: &dynamotest.Injector{Serialize: ep.name == "moto"}, table: tableName()}
	c.open(t, dynamo.Config{}) // creates the table
	return c
}

// open is another store instance on the shared table.
func (c *conflicted) open(t testing.TB, cfg dynamo.Config) *dynamo.Store {
	t.Helper()
	client := dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(c.ep.url),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		Retryer:      dynamo.NewRetryer(),
		HTTPClient:   c.in.HTTPClient(),
	})
	cfg.Client, cfg.Table, cfg.CreateTable = client, c.table, true
	s, err := dynamo.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Open on %s under the conflict model: %v", c.ep.name, err)
	}
	return s
}

// TestContractUnderConflicts runs the contract's races with DynamoDB's
// conflict rule in force.
func TestContractUnderConflicts(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			storetest.RunGroup(t, "Concurrency", func(t *testing.T) board.Store {
				return newConflicted(t, ep.newEndpoint(t)).open(t, dynamo.Config{})
			})
		})
	}
}

// TestSharedUnderConflicts runs the races across instances with DynamoDB's
// conflict rule in force: the instances' transactions now meet on items as
// they would on DynamoDB.
func TestSharedUnderConflicts(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			storetest.RunShared(t, func(t *testing.T) storetest.Instances {
				c := newConflicted(t, ep.newEndpoint(t))
				return func(t *testing.T) board.Store { return c.open(t, dynamo.Config{}) }
			})
		})
	}
}
