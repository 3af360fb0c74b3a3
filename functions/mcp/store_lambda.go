//go:build lambda

package main

import (
	"context"
	"errors"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

func openSQLite(context.Context, string) (board.Store, error) {
	return nil, errors.New("this build has no embedded store (built with -tags lambda, for Lambda); use LEDGER_STORE=dynamodb or build without the tag")
}
