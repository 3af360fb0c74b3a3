package dynamo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
)

// Environment variables OpenFromEnv reads.
const (
	EnvTable       = "LEDGER_TABLE"        // table name (required)
	EnvEndpoint    = "DYNAMODB_ENDPOINT"   // DynamoDB-compatible endpoint; unset: AWS
	EnvCreateTable = "LEDGER_CREATE_TABLE" // 1/true: create the table if missing
)

// OpenFromEnv is what the composition root calls for LEDGER_STORE=dynamodb:
// it builds the client (region and credentials from the SDK's default
// chain, DYNAMODB_ENDPOINT if set), creates the table when
// LEDGER_CREATE_TABLE is true, and opens the store. getenv is os.Getenv
// outside tests.
func OpenFromEnv(ctx context.Context, getenv func(string) string, log *slog.Logger) (*Store, error) {
	table := getenv(EnvTable)
	if table == "" {
		return nil, errors.New("dynamo: LEDGER_TABLE is not set: name the DynamoDB table (LEDGER_STORE=dynamodb needs it)")
	}
	create := false
	if v := getenv(EnvCreateTable); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("dynamo: %s=%q is not a boolean (use 1 or 0)", EnvCreateTable, v)
		}
		create = b
	}
	endpoint := getenv(EnvEndpoint)
	client, err := NewClient(ctx, ClientConfig{Endpoint: endpoint})
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.Default()
	}
	return Open(ctx, Config{Client: client, Table: table, CreateTable: create, Logger: log,
		// A named endpoint is a local test server (moto, DynamoDB Local),
		// served to one process: keep moto's writes from undoing each other.
		SerializeWrites: endpoint != ""})
}
