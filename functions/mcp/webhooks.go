package main

import (
	"log/slog"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// webhookSettings are what the environment says about webhooks
// (docs/configuration.md).
type webhookSettings = webhook.Settings

func loadWebhookSettings(getenv func(string) string) (webhookSettings, error) {
	return webhook.LoadSettings(getenv)
}

// newWebhooks is the webhooks service on the store, or nil when the store
// keeps no webhooks.
func newWebhooks(cfg config, store board.Store, log *slog.Logger) *webhook.Service {
	ws, ok := store.(webhook.Store)
	if !ok {
		return nil
	}
	wc := webhook.Config{Store: ws, Secrets: store, Workspaces: store, BaseURL: cfg.BaseURL, Retention: cfg.Retention, Logger: log}
	cfg.webhooks.Apply(&wc)
	return webhook.New(wc)
}
