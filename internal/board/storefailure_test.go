package board_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// failingStore fails every listing the way a broken disk or network would.
type failingStore struct {
	board.Store
	err error
}

func (f failingStore) ListWorkspaces(context.Context) ([]board.Workspace, error) { return nil, f.err }

// A store failure reaches the caller as an internal error that says retrying
// is safe, and the operator's log; a cancellation says the outcome is
// unknown and is not logged as a failure.
func TestStoreFailuresAreReportedAndLogged(t *testing.T) {
	var logs bytes.Buffer
	svc, err := board.NewService(board.Config{
		Store:  failingStore{err: errors.New("disk I/O error")},
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.ListWorkspaces(context.Background())
	if board.ErrorCode(err) != board.CodeInternal || !strings.Contains(err.Error(), "disk I/O error") || !strings.Contains(err.Error(), "nothing is lost by retrying") {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(logs.String(), "store call failed") || !strings.Contains(logs.String(), "disk I/O error") {
		t.Fatalf("log = %q", logs.String())
	}

	logs.Reset()
	svc, _ = board.NewService(board.Config{Store: failingStore{err: context.Canceled}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	_, err = svc.ListWorkspaces(context.Background())
	if !strings.Contains(err.Error(), "may or may not have been written") || !strings.Contains(err.Error(), "find_request") {
		t.Fatalf("cancelled: %v", err)
	}
	if logs.Len() != 0 {
		t.Fatalf("a cancellation was logged as a failure: %q", logs.String())
	}
}
