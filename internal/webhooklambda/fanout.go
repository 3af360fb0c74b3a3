// Package webhooklambda is the webhooks' AWS path as Lambda handlers
// (docs/webhooks.md, "On AWS"): Fanout consumes the table's stream of new
// event items and queues one delivery per subscription that wants each
// (functions/webhookfanout); Sender posts the queued deliveries
// (functions/webhooksender). Both open the table and the queue the
// environment names, as the deployed functions do.
package webhooklambda

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/sqsqueue"
	"github.com/ticket-ledger/ticket-ledger/internal/streamimage"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// FanoutTableActions are the DynamoDB operations the fan-out sends:
// opening the store (the workspaces' BatchGetItem, a conditional PutItem
// seeding one missing) and one Query of the subscriptions. template.yaml
// grants these and no more (a test holds the two equal, another records
// what the fan-out sends).
var FanoutTableActions = []string{"BatchGetItem", "PutItem", "Query"}

// Fanout turns stream records of new events into queued deliveries.
type Fanout struct {
	hooks interface {
		Fanout(ctx context.Context, ev board.Event) ([]webhook.Delivery, error)
	}
	queue interface {
		Enqueue(ctx context.Context, ds []webhook.Delivery) error
	}
	log *slog.Logger
}

// NewFanout opens the table (LEDGER_TABLE; DYNAMODB_ENDPOINT and
// LEDGER_DYNAMODB_SERIALIZE_WRITES for test endpoints, as for the other
// functions) and the queue (LEDGER_WEBHOOK_QUEUE_URL; SQS_ENDPOINT for a
// test endpoint).
func NewFanout(ctx context.Context, getenv func(string) string, log *slog.Logger) (*Fanout, error) {
	table := getenv("LEDGER_TABLE")
	if table == "" {
		return nil, fmt.Errorf("LEDGER_TABLE is not set")
	}
	store, err := dynamo.Connect(ctx, dynamo.Endpoint{URL: getenv("DYNAMODB_ENDPOINT"), Table: table,
		SerializeWrites: getenv("LEDGER_DYNAMODB_SERIALIZE_WRITES") == "1"}, log)
	if err != nil {
		return nil, err
	}
	q, err := sqsqueue.New(sqsqueue.Config{URL: getenv("LEDGER_WEBHOOK_QUEUE_URL"), Endpoint: getenv("SQS_ENDPOINT")})
	if err != nil {
		return nil, err
	}
	hooks := webhook.New(webhook.Config{Store: store, Secrets: store, Workspaces: store, Logger: log})
	return &Fanout{hooks: hooks, queue: q, log: log}, nil
}

// Handle queues a batch's deliveries record by record, in order, and stops
// at the first record that fails: Lambda retries from it
// (ReportBatchItemFailures), so no record is queued before one that came
// earlier on its shard.
func (f *Fanout) Handle(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	var resp events.DynamoDBEventResponse
	queued := 0
	for _, r := range ev.Records {
		n, err := f.queueRecord(ctx, r)
		if err != nil {
			f.log.Error("queueing an event's webhook deliveries failed; the batch is retried from this record",
				"event_id", r.EventID, "sequence_number", r.Change.SequenceNumber, "err", err)
			resp.BatchItemFailures = []events.DynamoDBBatchItemFailure{{ItemIdentifier: r.Change.SequenceNumber}}
			break
		}
		queued += n
	}
	f.log.Info("stream batch", "records", len(ev.Records), "deliveries_queued", queued)
	return resp, nil
}

func (f *Fanout) queueRecord(ctx context.Context, r events.DynamoDBEventRecord) (int, error) {
	e, err := dynamo.EventFromImage(streamimage.Image(r.Change.NewImage))
	if err != nil {
		// Trying it again would fail again and hold every record after
		// it on the shard: it is logged and passed over.
		f.log.Error("a stream record's event does not decode; no webhook is sent for it",
			"event_id", r.EventID, "sequence_number", r.Change.SequenceNumber, "err", err)
		return 0, nil
	}
	if e == nil {
		return 0, nil // an item that is no event passed the filter: nothing to send
	}
	ds, err := f.hooks.Fanout(ctx, *e)
	if err != nil || len(ds) == 0 {
		return 0, err
	}
	return len(ds), f.queue.Enqueue(ctx, ds)
}
