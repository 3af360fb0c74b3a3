package dynamo_test

import (
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
)

// TestTransfer runs the board move contract on every endpoint, each
// subtest on a fresh table.
func TestTransfer(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			storetest.RunTransfer(t, func(t *testing.T) storetest.Store {
				return openStore(t, ep.newEndpoint(t), nil, dynamo.Config{SerializeWrites: ep.name == "moto"})
			})
		})
	}
}
