//go:build !lambda

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
	"github.com/ticket-ledger/ticket-ledger/internal/tasks"
)

// run serves locally on LEDGER_ADDR until SIGINT or SIGTERM. The Lambda
// build leaves it out (serve_lambda.go).
func run(log *slog.Logger) error {
	cfg, err := loadConfig(os.Getenv)
	if err != nil {
		return err
	}
	if err := checkListen(cfg); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	store, err := openStore(ctx, cfg, log, nil)
	if err != nil {
		return err
	}
	defer store.Close()
	svc, err := newService(cfg, store, log)
	if err != nil {
		return err
	}
	// Long imports run here, in the background; after a restart (a SIGKILL
	// included) the unfinished ones resume from their stored cursor.
	runner := tasks.NewLocal(svc, log)
	defer runner.Close()
	svc.SetRunner(runner)
	cfg.tasks = runner
	cfg.metricsOut = metricsWriter(os.Getenv, os.Stdout)
	if n, err := runner.Resume(ctx); err != nil {
		return fmt.Errorf("resuming unfinished tasks: %w", err)
	} else if n > 0 {
		log.Warn("resumed unfinished tasks", "count", n)
	}
	handler := routes(cfg, store, svc, log, mcpserver.HandlerOptions{AllowedOrigins: cfg.AllowedOrigins})
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	srv := newHTTPServer(handler, defaultLimits)
	if cfg.Author == "" && cfg.Auth == auth.ModeLoopback {
		log.Warn("LEDGER_AUTHOR is not set: MCP reads work, writes are refused until it is (e.g. LEDGER_AUTHOR=ai:claude)")
	}
	// The address line is what scripts and tests wait for: written at any
	// LEDGER_LOG_LEVEL, in the log's format (a level on every line).
	announce(log, fmt.Sprintf("ticket-ledger listening on http://%s/mcp (store %s)", ln.Addr(), cfg.Store))
	announce(log, fmt.Sprintf("ticket-ledger board on http://%s/ (LEDGER_AUTH=%s)", ln.Addr(), cfg.Auth))
	if cfg.publicHostChecked() {
		announce(log, fmt.Sprintf("ticket-ledger answers as %s/ only (LEDGER_BASE_URL); trusted proxies: %v", cfg.BaseURL, cfg.TrustedProxies))
	}
	if warning := cfg.plainHTTPWarning(); warning != "" {
		log.Warn(warning)
	}
	// Webhooks are sent from here, each subscription from its stored
	// cursor: after a restart (a SIGKILL included) an event whose delivery
	// was cut off is sent again.
	delivering := make(chan struct{})
	if handler.webhooks != nil {
		go func() { defer close(delivering); handler.webhooks.Run(ctx) }()
	} else {
		close(delivering)
	}
	defer func() { stop(); <-delivering }() // stop ends the loop whatever ended serving
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
