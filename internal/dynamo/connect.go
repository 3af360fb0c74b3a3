package dynamo

import (
	"context"
	"log/slog"
)

// Endpoint says which table to open and where.
type Endpoint struct {
	// URL of a DynamoDB-compatible server (moto, DynamoDB Local); empty:
	// AWS itself, region and credentials from the SDK's default chain.
	URL         string
	Table       string
	CreateTable bool // create the table when it is missing (local use)
}

// Connect builds the client and opens the store: what the composition root
// calls for LEDGER_STORE=dynamodb. A named URL is a local test server
// serving one process, so its writes are serialized (see
// Config.SerializeWrites: moto's transactions can undo each other).
func Connect(ctx context.Context, ep Endpoint, log *slog.Logger) (*Store, error) {
	client, err := NewClient(ctx, ClientConfig{Endpoint: ep.URL})
	if err != nil {
		return nil, err
	}
	return Open(ctx, Config{Client: client, Table: ep.Table, CreateTable: ep.CreateTable, Logger: log,
		SerializeWrites: ep.URL != ""})
}
