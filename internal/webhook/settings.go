package webhook

import (
	"fmt"
	"strconv"
	"time"
)

// The environment's webhook settings (docs/webhooks.md, "Settings"), read
// the same way by the server and by the queue's sender.
const (
	// EnvAllowPrivate=1 lets webhooks go to loopback and private
	// addresses and over plain http: development and tests only.
	EnvAllowPrivate = "LEDGER_WEBHOOK_ALLOW_PRIVATE"
	// EnvRetry is the waits after failures in a row, e.g.
	// "5s,1m,10m,1h,6h" (the default); the last repeats.
	EnvRetry = "LEDGER_WEBHOOK_RETRY"
	// EnvGiveUp is how long deliveries may fail before the subscription
	// is paused (default 24h).
	EnvGiveUp = "LEDGER_WEBHOOK_GIVE_UP"
	// EnvPoll is how often the local sender looks for new events
	// (default 1s).
	EnvPoll = "LEDGER_WEBHOOK_POLL"
)

// Settings are what the environment says about deliveries; zero values
// leave Config's defaults.
type Settings struct {
	AllowPrivate bool
	Schedule     []time.Duration
	GiveUp, Poll time.Duration
}

// LoadSettings reads the settings; a value that does not parse is an error
// naming the variable.
func LoadSettings(getenv func(string) string) (Settings, error) {
	var w Settings
	if v := getenv(EnvAllowPrivate); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return w, fmt.Errorf("%s=%q is not a boolean (use 1 or 0)", EnvAllowPrivate, v)
		}
		w.AllowPrivate = b
	}
	if v := getenv(EnvRetry); v != "" {
		s, err := ParseSchedule(v)
		if err != nil {
			return w, fmt.Errorf("%s=%q: %w", EnvRetry, v, err)
		}
		w.Schedule = s
	}
	for key, dst := range map[string]*time.Duration{EnvGiveUp: &w.GiveUp, EnvPoll: &w.Poll} {
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

// Apply sets the settings on cfg.
func (w Settings) Apply(cfg *Config) {
	cfg.AllowPrivate, cfg.Schedule, cfg.GiveUp, cfg.Poll = w.AllowPrivate, w.Schedule, w.GiveUp, w.Poll
}
