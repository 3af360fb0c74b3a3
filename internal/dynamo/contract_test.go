package dynamo_test

import (
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
)

// TestContract runs the shared Store contract against every endpoint, each
// subtest on a fresh table.
func TestContract(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			storetest.Run(t, func(t *testing.T) storetest.Store {
				// moto applies a transaction item by item and undoes a
				// cancelled one by restoring a snapshot of the table, so
				// concurrent writes can undo each other there: serialize
				// them, as LEDGER_DYNAMODB_SERIALIZE_WRITES=1 does (docs/dynamodb.md).
				return openStore(t, ep.newEndpoint(t), nil, dynamo.Config{SerializeWrites: ep.name == "moto"})
			})
		})
	}
}

// TestShared runs the shared races on one table reached by several store
// instances, each with its own client, cache and locks, as several Lambda
// instances would reach it. On moto they share the process's endpoint
// turns (SerializeWrites), which only make moto isolate requests as
// DynamoDB does; the races themselves (read, compute, conditional commit)
// still interleave.
func TestShared(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			storetest.RunShared(t, func(t *testing.T) storetest.Instances {
				e := ep.newEndpoint(t)
				table := tableName()
				openStore(t, e, nil, dynamo.Config{Table: table}) // creates the table
				cfg := dynamo.Config{Table: table}                // the production budget (DefaultCounterRaceBudget)
				if e.name == "moto" {
					// The one exception: moto answers one request at a time
					// (SerializeWrites), slowly, and the packages of make test
					// share one moto, so a create there can wait behind the other
					// instances' turns for longer than DynamoDB would ever make
					// it; the race itself is still run on the production budget
					// on minidyn.
					cfg.SerializeWrites, cfg.CounterRaceBudget = true, 2*time.Minute
				}
				return func(t *testing.T) storetest.Store { return openStore(t, e, nil, cfg) }
			})
		})
	}
}
