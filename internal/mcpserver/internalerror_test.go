package mcpserver_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// brokenDisk fails every create the way a failing disk does.
type brokenDisk struct{ board.Store }

func (brokenDisk) CreateTicket(context.Context, board.CreateTx) (ledger.Record, error) {
	return ledger.Record{}, errors.New("disk I/O error (SQLITE_IOERR_WRITE) on /var/lib/ledger/ledger.db")
}

// A store failure reaches the model as a tool error that says what to do
// and names an error id, never the cause (a path, an engine's error code).
func TestInternalErrorsReachTheModelWithoutInternals(t *testing.T) {
	onEachStore(t, envOptions{wrap: func(s board.Store) board.Store { return brokenDisk{s} }}, func(t *testing.T, e *env) {
		cs := connect(t, e.URL, modernVersion, nil)
		msg := callErr(t, cs, "create_ticket", map[string]any{"request_id": "r", "workspace": "inbox", "title": "t"})
		for _, leak := range []string{"disk", "SQLITE", "/var/lib", "ledger.db"} {
			if strings.Contains(msg, leak) {
				t.Errorf("tool error %q shows %q", msg, leak)
			}
		}
		if !regexp.MustCompile(`error id err-[0-9a-f]{12}`).MatchString(msg) || !strings.Contains(msg, "find_request") {
			t.Errorf("tool error %q: want what to do next and an error id", msg)
		}
		// Domain errors keep their own words, with no error id.
		if got := callErr(t, cs, "create_ticket", map[string]any{"request_id": "r2", "workspace": "inbox", "title": " "}); got != "title must not be blank" {
			t.Errorf("domain error: %q, want its own text", got)
		}
	})
}
