// Command webhooksender posts the webhooks' queued deliveries (Lambda,
// provided.al2023, arm64; docs/webhooks.md "On AWS"): handed batches of
// the FIFO queue's messages by its event source, it sends each with the
// signing, address rules and delivery log the local server uses
// (webhook.Service.SendQueued). A delivery that failed is reported as a
// batch item failure and kept invisible for the retry schedule's next step
// (ChangeMessageVisibility), with the messages after it in its group;
// after the give-up window the subscription is paused with the reason.
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
	s, err := webhooklambda.NewSender(context.Background(), os.Getenv, log)
	if err != nil {
		log.Error("the webhooks' sender could not start", "err", err)
		os.Exit(1)
	}
	lambda.Start(s.Handle)
}
