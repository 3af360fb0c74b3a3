package main

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

// A call made while the store opens waits for it, then goes through.
func TestOpeningStoreWaitsForTheOpen(t *testing.T) {
	release := make(chan struct{})
	s := openInBackground(context.Background(), func(ctx context.Context) (board.Store, error) {
		<-release
		return sqlite.Open(ctx, t.TempDir()+"/ledger.db")
	}, slog.New(slog.DiscardHandler))
	t.Cleanup(func() { s.Close() })

	got := make(chan int, 1)
	go func() {
		ws, err := s.ListWorkspaces(context.Background())
		if err != nil {
			t.Error(err)
		}
		got <- len(ws)
	}()
	// Still opening: a caller that gives up gets its own context's error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.GetWorkspace(ctx, "inbox"); !errors.Is(err, context.Canceled) {
		t.Fatalf("call during opening with a cancelled context: %v", err)
	}
	close(release)
	if n := <-got; n != 3 {
		t.Fatalf("waiting call saw %d workspaces, want the 3 seeded", n)
	}
}

// A failed open fails every call with a message that says nothing was written.
func TestOpeningStoreReportsAFailedOpen(t *testing.T) {
	s := openInBackground(context.Background(), func(context.Context) (board.Store, error) {
		return nil, errors.New("table ticket-ledger not found")
	}, slog.New(slog.DiscardHandler))
	_, err := s.GetWorkspace(context.Background(), "inbox")
	if err == nil || !strings.Contains(err.Error(), "table ticket-ledger not found") || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("err = %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close after a failed open: %v", err)
	}
}
