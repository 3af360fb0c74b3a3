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
	// SerializeWrites: see Config.SerializeWrites. Only for endpoints that
	// do not isolate concurrent requests (moto); never implied by URL, since
	// a regional, FIPS or VPC endpoint is DynamoDB itself.
	SerializeWrites bool
	// Early: see Config.Early.
	Early func(*Store)
	// WordsByStream: see Config.WordsByStream.
	WordsByStream bool
}

// Connect builds the client and opens the store: what the composition root
// calls for LEDGER_STORE=dynamodb.
func Connect(ctx context.Context, ep Endpoint, log *slog.Logger) (*Store, error) {
	client, err := NewClient(ctx, ClientConfig{Endpoint: ep.URL})
	if err != nil {
		return nil, err
	}
	return Open(ctx, Config{Client: client, Table: ep.Table, CreateTable: ep.CreateTable, Logger: log,
		SerializeWrites: ep.SerializeWrites, Early: ep.Early, WordsByStream: ep.WordsByStream})
}

// SerializesWrites reports whether the store sends one write at a time
// (Config.SerializeWrites), for the composition root's tests and logs.
func (s *Store) SerializesWrites() bool { return s.serialize }
