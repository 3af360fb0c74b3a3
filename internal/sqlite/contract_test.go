package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
)

// TestContract runs the shared board.Store contract suite against a fresh
// database file per subtest.
func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Store {
		s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), sqlite.FileName))
		if err != nil {
			t.Fatalf("sqlite.Open: %v", err)
		}
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		return s
	})
}

// TestShared runs the shared races on one database file opened by several
// store instances, as several processes would open it.
func TestShared(t *testing.T) {
	storetest.RunShared(t, func(t *testing.T) storetest.Instances {
		path := filepath.Join(t.TempDir(), sqlite.FileName)
		return func(t *testing.T) storetest.Store {
			s, err := sqlite.Open(t.Context(), path)
			if err != nil {
				t.Fatalf("sqlite.Open: %v", err)
			}
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			return s
		}
	})
}
