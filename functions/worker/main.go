// Command worker is the Step Functions task worker (Lambda, provided.al2023,
// arm64): each invocation continues one durable task's import for a run of
// chunks and tells the state machine whether it ended. It opens the same
// DynamoDB table as the MCP function; the rows, the cursor and the task's
// status live there, never in the execution's state.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
	"github.com/ticket-ledger/ticket-ledger/internal/obs"
	"github.com/ticket-ledger/ticket-ledger/internal/sfn"
)

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	w, err := newWorker(context.Background(), os.Getenv, log)
	if err != nil {
		log.Error("the worker could not start", "err", err)
		os.Exit(1)
	}
	var metrics *obs.Metrics
	if os.Getenv("LEDGER_METRICS") != "off" {
		metrics = obs.NewMetrics(os.Stdout) // CloudWatch extracts them from the log group
	}
	lambda.Start(observed(w, log, metrics))
}

// newWorker opens the store named by the environment (the template sets
// LEDGER_TABLE, LEDGER_RETENTION and LEDGER_BASE_URL as for the MCP
// function) and builds the worker.
func newWorker(ctx context.Context, getenv func(string) string, log *slog.Logger) (*sfn.Worker, error) {
	table := getenv("LEDGER_TABLE")
	if table == "" {
		return nil, fmt.Errorf("LEDGER_TABLE is not set")
	}
	retention := ledger.DefaultRetention
	if v := getenv("LEDGER_RETENTION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return nil, fmt.Errorf("LEDGER_RETENTION=%q: %w", v, err)
		}
		retention = d
	}
	maxRows := 0
	if v := getenv("LEDGER_WORKER_MAX_ROWS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("LEDGER_WORKER_MAX_ROWS=%q is not a row count", v)
		}
		maxRows = n
	}
	// LEDGER_DYNAMODB_SERIALIZE_WRITES=1 only for test endpoints that do not
	// isolate concurrent requests (moto), as for the MCP function.
	store, err := dynamo.Connect(ctx, dynamo.Endpoint{URL: getenv("DYNAMODB_ENDPOINT"), Table: table,
		SerializeWrites: getenv("LEDGER_DYNAMODB_SERIALIZE_WRITES") == "1"}, log)
	if err != nil {
		return nil, err
	}
	svc, err := board.NewService(board.Config{Store: store, BaseURL: getenv("LEDGER_BASE_URL"), Retention: retention, Logger: log})
	if err != nil {
		return nil, err
	}
	return &sfn.Worker{Svc: svc, MaxRows: maxRows}, nil
}
