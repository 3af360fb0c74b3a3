package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// checkTaskHeaders enforces the tasks extension's routing header: on
// 2026-07-28, a tasks/get, tasks/update or tasks/cancel request must carry
// Mcp-Name equal to params.taskId, else HTTP 400 with JSON-RPC -32020
// (HeaderMismatch), as the SDK does for the standard methods' headers. The
// body was buffered by requireUTF8.
func checkTaskHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Protocol-Version") < "2026-07-28" {
			next.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var call struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				TaskID *string `json:"taskId"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &call) != nil {
			next.ServeHTTP(w, r)
			return
		}
		switch call.Method {
		case methodTasksGet, methodTasksUpdate, methodTasksCancel:
		default:
			next.ServeHTTP(w, r)
			return
		}
		name, has := r.Header["Mcp-Name"]
		var msg string
		switch {
		case !has || len(name) == 0:
			msg = fmt.Sprintf("%s needs the Mcp-Name header set to params.taskId", call.Method)
		case call.Params.TaskID == nil || name[0] != *call.Params.TaskID:
			msg = fmt.Sprintf("the Mcp-Name header %q does not match params.taskId of %s", name[0], call.Method)
		default:
			next.ServeHTTP(w, r)
			return
		}
		id := call.ID
		if len(id) == 0 {
			id = json.RawMessage("null")
		}
		resp, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": codeHeaderMismatch, "message": msg}})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write(resp)
	})
}
