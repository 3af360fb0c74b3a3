package main

import (
	"log/slog"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/oauth"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// boardDeps is what the web board is built from, named apart from
// internal/web so that the composition root compiles with or without the
// board (board.go, noboard.go).
type boardDeps struct {
	svc      *board.Service
	accounts *auth.Accounts
	resolver *auth.Resolver
	baseURL  string
	oauth    *oauth.Server
	log      *slog.Logger
	webhooks *webhook.Service // nil: the store keeps no webhooks
}
