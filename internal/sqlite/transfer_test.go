package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
)

// TestTransfer runs the board move contract on a fresh file per subtest.
func TestTransfer(t *testing.T) {
	storetest.RunTransfer(t, openTransferStore)
}

// TestTransferAcrossPages runs it again with exports reading two rows at
// a time, so every kind of item crosses pages (a resumed keyset that
// skipped or repeated a row would lose or duplicate an item in the move).
func TestTransferAcrossPages(t *testing.T) {
	// Restored once the parallel subtests are done, not when this returns.
	t.Cleanup(sqlite.SetExportPage(2))
	storetest.RunTransfer(t, openTransferStore)
}

func openTransferStore(t *testing.T) storetest.Store {
	s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
