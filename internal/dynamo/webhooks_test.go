package dynamo_test

import (
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook/webhooktest"
)

// TestWebhookContract runs webhook.Store's contract on every endpoint,
// with a settle window short enough for a test and long enough for a
// write in flight on a busy endpoint.
func TestWebhookContract(t *testing.T) {
	dynamo.SetWebhookSettle(time.Second)
	t.Cleanup(func() { dynamo.SetWebhookSettle(dynamo.DefaultWebhookSettle) })
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			webhooktest.Run(t, func(t *testing.T) webhooktest.Backend {
				return openStore(t, ep.newEndpoint(t), nil, dynamo.Config{SerializeWrites: ep.name == "moto"})
			})
		})
	}
}
