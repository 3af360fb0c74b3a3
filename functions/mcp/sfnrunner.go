package main

import (
	"context"

	"github.com/ticket-ledger/ticket-ledger/internal/sfn"
)

// newStepFunctionsRunner runs long imports on the state machine
// LEDGER_STATE_MACHINE_ARN names. DYNAMODB_ENDPOINT, when set (a local
// test server), serves Step Functions too: moto serves both.
func newStepFunctionsRunner(ctx context.Context, cfg config) (*sfn.Runner, error) {
	client, err := sfn.NewClient(ctx, cfg.Endpoint)
	if err != nil {
		return nil, err
	}
	return sfn.NewRunner(client, cfg.StateMachine)
}
