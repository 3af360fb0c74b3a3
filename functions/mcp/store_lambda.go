//go:build lambda

package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

func openSQLite(context.Context, string, *slog.Logger, bool) (board.Store, error) {
	return nil, errors.New("this build has no embedded store (built with -tags lambda, for Lambda); use LEDGER_STORE=dynamodb or build without the tag")
}
