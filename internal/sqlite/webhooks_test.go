package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook/webhooktest"
)

func TestWebhookContract(t *testing.T) {
	webhooktest.Run(t, func(t *testing.T) webhooktest.Backend {
		s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "ledger.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}
