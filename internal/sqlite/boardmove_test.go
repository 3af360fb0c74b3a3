package sqlite_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
)

// TestBoardMove runs the board move contract on a fresh file per subtest.
func TestBoardMove(t *testing.T) {
	storetest.RunBoardMove(t, func(t *testing.T) board.Store {
		s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), sqlite.FileName))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// A batch put commits the items before a failing one and nothing from it
// on, and stops after a clash when asked to.
func TestPutBatch(t *testing.T) {
	ctx := t.Context()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	ticket := func(n int64) *board.Ticket {
		return &board.Ticket{ID: fmt.Sprintf("inbox-%d", n), Workspace: "inbox", Number: n, Title: "T", Status: board.StatusCandidate,
			Priority: board.PriorityNormal, CreatedBy: "human", CreatedAt: now, UpdatedAt: now, Version: 1}
	}
	orphan := &board.Note{ID: "n", TicketID: "inbox-99", Body: "b", Author: "human", Source: board.SourceWeb, CreatedAt: now}
	outs, err := s.PutBatch(ctx, []board.MovedItem{{Ticket: ticket(1)}, {Ticket: ticket(2)}, {Note: orphan}, {Ticket: ticket(3)}}, now, false)
	var be *board.BatchError
	if !errors.As(err, &be) || be.Index != 2 || !errors.Is(err, board.ErrNotFound) || len(outs) != 2 {
		t.Fatalf("batch with an orphan note: %v, %v; want items 0-1 written and a failure at 2", outs, err)
	}
	clash := ticket(2)
	clash.Title = "other"
	outs, err = s.PutBatch(ctx, []board.MovedItem{{Ticket: ticket(1)}, {Ticket: clash}, {Ticket: ticket(3)}}, now, true)
	if err != nil || !slices.Equal(outs, []board.Outcome{board.AlreadyThere, board.Collision}) {
		t.Fatalf("batch with a clash: %v, %v; want it to stop after the clash", outs, err)
	}
	w, err := s.GetWorkspace(ctx, "inbox")
	if err != nil || w.Counts[board.StatusCandidate] != 2 {
		t.Errorf("inbox counts %v, %v; want tickets 1 and 2 only", w.Counts, err)
	}
}
