package sqlite_test

import (
	"path/filepath"
	"testing"

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
