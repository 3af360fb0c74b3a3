package web

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/httpstatus"
)

// The board's pages answer every domain code with httpstatus's status, the
// one the REST API answers: one error, one status on every surface.
func TestStatusPerCode(t *testing.T) {
	for _, code := range httpstatus.Codes() {
		err := fmt.Errorf("wrapped: %w", board.Errorf(code, "what went wrong"))
		if got, want := statusOf(err), httpstatus.Of(code); got != want {
			t.Errorf("%s: the page answers %d, the table says %d", code, got, want)
		}
	}
	if got := statusOf(errors.New("disk on fire")); got != http.StatusInternalServerError {
		t.Errorf("a plain error: %d, want 500", got)
	}
	if got := statusOf(&auth.RateLimitedError{}); got != http.StatusTooManyRequests {
		t.Errorf("too many sign-ins: %d, want 429", got)
	}
}
