package testbackends

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
)

// StreamTable is a fresh table with its stream on, as the template
// declares it, and a store on it: what the stream's consumers (the
// indexer, the webhook fan-out and sender) are tested against.
type StreamTable struct {
	Client    *dynamodb.Client
	Table     string
	StreamARN string
	Store     *dynamo.Store
}

// NewStreamTable creates the table on endpoint (deleted when the test
// ends) and opens a store on it with cfg, whose Client and Table it fills
// in. It sets the fake credentials the SDK clients read.
func NewStreamTable(t testing.TB, ctx context.Context, endpoint string, cfg dynamo.Config) StreamTable {
	t.Helper()
	FakeAWSCredentials(t)
	client, err := dynamo.NewClient(ctx, dynamo.ClientConfig{Endpoint: endpoint})
	if err != nil {
		t.Fatal(err)
	}
	st := StreamTable{Client: client, Table: TableName()}
	in := dynamo.CreateTableInput(st.Table)
	in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: dynamo.StreamViewType}
	out, err := client.CreateTable(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(st.Table)})
	})
	st.StreamARN = aws.ToString(out.TableDescription.LatestStreamArn)
	cfg.Client, cfg.Table = client, st.Table
	if st.Store, err = dynamo.Open(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	return st
}
