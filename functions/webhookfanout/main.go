// Command webhookfanout is the webhooks' stream consumer (Lambda,
// provided.al2023, arm64; docs/webhooks.md "On AWS"): subscribed to the
// table's stream, new event items only by its filter
// (dynamo.EventStreamPattern), it queues each event's deliveries, one per
// subscription that wants it (webhook.Service.Fanout), on the webhooks'
// FIFO queue. Its event source mapping never drops a record (unbounded
// retries and record age): a record that fails is reported, and Lambda
// retries the batch from it, so events of one ticket are queued in the
// order the stream gives them. Queueing a record again queues nothing
// twice (the queue deduplicates per subscription and event).
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/ticket-ledger/ticket-ledger/internal/webhooklambda"
)

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	f, err := webhooklambda.NewFanout(context.Background(), os.Getenv, log)
	if err != nil {
		log.Error("the webhooks' fan-out could not start", "err", err)
		os.Exit(1)
	}
	lambda.Start(f.Handle)
}
