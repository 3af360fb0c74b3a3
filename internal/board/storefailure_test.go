package board_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"regexp"
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

var errorIDPattern = regexp.MustCompile(`err-[0-9a-f]{12}`)

// An internal failure reaches the caller without its internals: a message
// that says what to do next, with an error id; the operator's log has the
// cause under the same id. A cancellation says the outcome is unknown and
// is not logged as a failure; a domain error keeps its own text.
func TestInternalErrorsHideTheCauseAndNameAnID(t *testing.T) {
	var logs bytes.Buffer
	svc, err := board.NewService(board.Config{
		Store:  failingStore{err: errors.New("disk I/O error (SQLITE_IOERR_WRITE)")},
		Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.ListWorkspaces(context.Background())
	msg := err.Error()
	if board.ErrorCode(err) != board.CodeInternal || strings.Contains(msg, "disk") || strings.Contains(msg, "SQLITE") {
		t.Fatalf("caller sees %q: internals leak", msg)
	}
	for _, want := range []string{"Retrying is safe", "find_request", "give the error id"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not say %q", msg, want)
		}
	}
	id := errorIDPattern.FindString(msg)
	var domain *board.Error
	if id == "" || !errors.As(err, &domain) || domain.ErrorID != id {
		t.Fatalf("message %q names no error id (or not the one in the error: %+v)", msg, domain)
	}
	var line struct {
		Msg     string `json:"msg"`
		ErrorID string `json:"error_id"`
		Err     string `json:"err"`
	}
	if err := json.Unmarshal(logs.Bytes(), &line); err != nil {
		t.Fatalf("log %q: %v", logs.String(), err)
	}
	if line.ErrorID != id || !strings.Contains(line.Err, "disk I/O error (SQLITE_IOERR_WRITE)") {
		t.Fatalf("log line %+v, want the cause under error_id %s", line, id)
	}
	// Another failure gets another id.
	_, again := svc.ListWorkspaces(context.Background())
	if other := errorIDPattern.FindString(again.Error()); other == "" || other == id {
		t.Errorf("second failure's id %q, want a new one (first %s)", other, id)
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

	svc, _ = board.NewService(board.Config{Store: failingStore{err: board.ErrNotFound}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	_, err = svc.GetWorkspaceSummary(context.Background(), board.WorkspaceInput{Workspace: "Not A Slug"})
	if board.ErrorCode(err) != board.CodeInvalid || !strings.Contains(err.Error(), "not a valid slug") || errorIDPattern.MatchString(err.Error()) {
		t.Fatalf("domain error: %v, want its own text", err)
	}
}
