package main

import (
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// The webhooks' settings (docs/configuration.md).
const (
	// envWebhookAllowPrivate=1 lets webhooks go to loopback and private
	// addresses and over plain http: development and tests only.
	envWebhookAllowPrivate = "LEDGER_WEBHOOK_ALLOW_PRIVATE"
	// envWebhookRetry is the waits after failures in a row, e.g.
	// "5s,1m,10m,1h,6h" (the default); the last repeats.
	envWebhookRetry = "LEDGER_WEBHOOK_RETRY"
	// envWebhookGiveUp is how long deliveries may fail before the
	// subscription is paused (default 24h).
	envWebhookGiveUp = "LEDGER_WEBHOOK_GIVE_UP"
	// envWebhookPoll is how often the sender looks for new events
	// (default 1s).
	envWebhookPoll = "LEDGER_WEBHOOK_POLL"
)

// webhookSettings are what the environment says about webhooks.
type webhookSettings struct {
	allowPrivate bool
	schedule     []time.Duration
	giveUp, poll time.Duration
}

func loadWebhookSettings(getenv func(string) string) (webhookSettings, error) {
	var w webhookSettings
	if v := getenv(envWebhookAllowPrivate); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return w, fmt.Errorf("%s=%q is not a boolean (use 1 or 0)", envWebhookAllowPrivate, v)
		}
		w.allowPrivate = b
	}
	if v := getenv(envWebhookRetry); v != "" {
		s, err := webhook.ParseSchedule(v)
		if err != nil {
			return w, fmt.Errorf("%s=%q: %w", envWebhookRetry, v, err)
		}
		w.schedule = s
	}
	for key, dst := range map[string]*time.Duration{envWebhookGiveUp: &w.giveUp, envWebhookPoll: &w.poll} {
		if v := getenv(key); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return w, fmt.Errorf("%s=%q is not a positive duration such as 24h or 500ms", key, v)
			}
			*dst = d
		}
	}
	return w, nil
}

// newWebhooks is the webhooks service on the store, or nil when the store
// keeps no webhooks.
func newWebhooks(cfg config, store board.Store, log *slog.Logger) *webhook.Service {
	ws, ok := store.(webhook.Store)
	if !ok {
		return nil
	}
	w := cfg.webhooks
	return webhook.New(webhook.Config{Store: ws, Secrets: store, Workspaces: store, BaseURL: cfg.BaseURL, Retention: cfg.Retention,
		AllowPrivate: w.allowPrivate, Schedule: w.schedule, GiveUp: w.giveUp, Poll: w.poll, Logger: log})
}
