package mcpserver

import (
	"bytes"
	"net/http"
)

// missingCapability400 gives a JSON-RPC -32021 error (missing required
// client capability) the HTTP status 400 that 2026-07-28 asks for
// (SEP-2575); the SDK answers every JSON-RPC error of a tool call with 200.
// Only 2026-07-28 POSTs are held back, and only their status changes.
func missingCapability400(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Protocol-Version") < "2026-07-28" {
			next.ServeHTTP(w, r)
			return
		}
		rec := &heldResponse{header: http.Header{}}
		next.ServeHTTP(rec, r)
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		status := rec.status
		if status == 0 {
			status = http.StatusOK
		}
		if status == http.StatusOK && bytes.Contains(rec.body.Bytes(), []byte(`"code":-32021`)) {
			status = http.StatusBadRequest
		}
		if status != http.StatusOK || rec.body.Len() > 0 || rec.status != 0 {
			w.WriteHeader(status)
		}
		w.Write(rec.body.Bytes())
	})
}

// heldResponse buffers a response (JSON responses only: /mcp never streams).
type heldResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (h *heldResponse) Header() http.Header         { return h.header }
func (h *heldResponse) WriteHeader(status int)      { h.status = status }
func (h *heldResponse) Write(b []byte) (int, error) { return h.body.Write(b) }
func (h *heldResponse) Flush()                      {}
