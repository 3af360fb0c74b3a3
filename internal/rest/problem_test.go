package rest

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/httpstatus"
)

// Every domain code is answered with httpstatus's status (the web board's
// too), its own title, and itself as the problem's code and type.
func TestProblemStatusPerCode(t *testing.T) {
	for _, code := range httpstatus.Codes() {
		rec := httptest.NewRecorder()
		writeProblem(rec, board.Errorf(code, "what went wrong"))
		want := httpstatus.Of(code)
		if rec.Code != want {
			t.Errorf("%s: answered %d, the table says %d", code, rec.Code, want)
		}
		var p map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
			t.Fatalf("%s: %s is not JSON", code, rec.Body)
		}
		if p["status"] != float64(want) || p["code"] != string(code) || p["type"] != "urn:ticket-ledger:problem:"+string(code) ||
			p["title"] != titles[code] || titles[code] == "" {
			t.Errorf("%s: problem %v", code, p)
		}
	}
}
