package main

import (
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
)

// The emulator test (emulator_test.go) is built only with -tags
// lambdaemulator: this says when a run left it out.
func TestLambdaEmulatorTestsAreBuilt(t *testing.T) { lambdatest.NeedEmulatorTests(t) }
