package web_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/web"
)

// The vendored SortableJS is the pinned one, with its licence beside it.
func TestVendoredSortable(t *testing.T) {
	b, err := os.ReadFile("static/sortable.min.js")
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != web.SortableSHA256 {
		t.Fatalf("static/sortable.min.js has sha256 %x, pinned %s (scripts/vendor-sortable.sh)", sum, web.SortableSHA256)
	}
	if !strings.Contains(string(b), "Sortable "+web.SortableVersion) {
		t.Fatalf("static/sortable.min.js is not SortableJS %s", web.SortableVersion)
	}
	if lic, err := os.ReadFile("static/sortable.LICENSE"); err != nil || !strings.Contains(string(lic), "MIT") {
		t.Fatalf("static/sortable.LICENSE: %v", err)
	}
	script, err := os.ReadFile("../../scripts/vendor-sortable.sh")
	if err != nil || !strings.Contains(string(script), "SORTABLE_VERSION="+web.SortableVersion) {
		t.Fatalf("scripts/vendor-sortable.sh does not pin %s", web.SortableVersion)
	}
}
