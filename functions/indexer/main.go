// Command indexer is the word index's stream consumer (Lambda,
// provided.al2023, arm64): subscribed to the table's stream (new and old
// images, ticket items only by its filter), it brings each changed
// ticket's word items in line with its words (dynamo.IndexWordChange):
// the body words and the deletions that did not fit the write's own
// transaction. Every record is idempotent, so a redelivered batch does the
// same writes again; a failure reports the record, and Lambda retries from
// it (bisecting the batch), then hands it to the failure queue.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/streamimage"
)

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	x, err := newIndexer(context.Background(), os.Getenv, log)
	if err != nil {
		log.Error("the indexer could not start", "err", err)
		os.Exit(1)
	}
	lambda.Start(x.handle)
}

// indexer applies stream records to the word index.
type indexer struct {
	words interface {
		IndexWordChange(ctx context.Context, before, after *board.Ticket, done int) error
	}
	log *slog.Logger
}

// newIndexer opens the table named by the environment (LEDGER_TABLE; for
// test endpoints DYNAMODB_ENDPOINT and LEDGER_DYNAMODB_SERIALIZE_WRITES,
// as for the other functions).
func newIndexer(ctx context.Context, getenv func(string) string, log *slog.Logger) (*indexer, error) {
	table := getenv("LEDGER_TABLE")
	if table == "" {
		return nil, fmt.Errorf("LEDGER_TABLE is not set")
	}
	store, err := dynamo.Connect(ctx, dynamo.Endpoint{URL: getenv("DYNAMODB_ENDPOINT"), Table: table,
		SerializeWrites: getenv("LEDGER_DYNAMODB_SERIALIZE_WRITES") == "1"}, log)
	if err != nil {
		return nil, err
	}
	return &indexer{words: store, log: log}, nil
}

// handle applies a batch in order and stops at the first record that
// fails: Lambda retries from the failed one (ReportBatchItemFailures), so
// the records of one ticket are never applied out of order.
func (x *indexer) handle(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	var resp events.DynamoDBEventResponse
	applied := 0
	for _, r := range ev.Records {
		if err := x.apply(ctx, r); err != nil {
			x.log.Error("indexing a ticket's words failed; the batch is retried from this record",
				"event_id", r.EventID, "sequence_number", r.Change.SequenceNumber, "err", err)
			resp.BatchItemFailures = []events.DynamoDBBatchItemFailure{{ItemIdentifier: r.Change.SequenceNumber}}
			break
		}
		applied++
	}
	x.log.Info("stream batch", "records", len(ev.Records), "applied", applied)
	return resp, nil
}

func (x *indexer) apply(ctx context.Context, r events.DynamoDBEventRecord) error {
	before, err := dynamo.TicketFromImage(streamimage.Image(r.Change.OldImage))
	if err != nil {
		return fmt.Errorf("old image: %w", err)
	}
	newImage := streamimage.Image(r.Change.NewImage)
	after, err := dynamo.TicketFromImage(newImage)
	if err != nil {
		return fmt.Errorf("new image: %w", err)
	}
	// The write's own transaction carried the first of its word changes.
	return x.words.IndexWordChange(ctx, before, after, dynamo.WordsDone(newImage))
}
