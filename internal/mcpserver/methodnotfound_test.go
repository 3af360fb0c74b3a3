package mcpserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// A JSON-RPC request for a method the server does not serve gets a JSON-RPC
// error -32601 on every revision (found by probing the wire beside the
// conformance suite: before 2026-07-28 the SDK answered a plain-text HTTP 400,
// "JSON RPC not handled", which no client can read as a JSON-RPC error).
func TestUnknownMethodIsJSONRPCMethodNotFound(t *testing.T) {
	url := capsServer(t)
	post := func(version, body string) (int, string, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header = capsHeaders(version, "foo/bar")
		if version == "" {
			req.Header.Del("MCP-Protocol-Version")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, tc := range []struct {
		version, body string
		status        int
	}{
		{"2025-11-25", `{"jsonrpc":"2.0","id":7,"method":"foo/bar","params":{}}`, http.StatusOK},
		{"2025-06-18", `{"jsonrpc":"2.0","id":"seven","method":"foo/bar"}`, http.StatusOK},
		{"", `{"jsonrpc":"2.0","id":7,"method":"foo/bar","params":{}}`, http.StatusOK}, // no header: 2025-03-26
		{"2026-07-28", `{"jsonrpc":"2.0","id":7,"method":"foo/bar","params":{` + meta + `}}`, http.StatusNotFound},
	} {
		status, ctype, body := post(tc.version, tc.body)
		var msg struct {
			ID    json.RawMessage `json:"id"`
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(body), &msg); err != nil || !strings.HasPrefix(ctype, "application/json") {
			t.Errorf("%q: HTTP %d %s %q, want a JSON-RPC error response", tc.version, status, ctype, body)
			continue
		}
		var sent struct{ ID json.RawMessage }
		json.Unmarshal([]byte(tc.body), &sent)
		if status != tc.status || msg.Error.Code != -32601 || string(msg.ID) != string(sent.ID) || !strings.Contains(msg.Error.Message, "foo/bar") {
			t.Errorf("%q: HTTP %d %s, want HTTP %d with code -32601 naming foo/bar and id %s", tc.version, status, body, tc.status, sent.ID)
		}
	}

	// Other refusals keep HTTP 400 and are JSON-RPC errors too (-32600),
	// never plain text: a batch, a wrong version tag, a notification of a
	// method the server does not know.
	for name, body := range map[string]string{
		"batch":        `[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`,
		"wrong tag":    `{"jsonrpc":"1.0","id":1,"method":"tools/list"}`,
		"notification": `{"jsonrpc":"2.0","method":"notifications/foo"}`,
	} {
		status, ctype, got := post("2025-11-25", body)
		var msg struct {
			Error struct{ Code int } `json:"error"`
		}
		if status != http.StatusBadRequest || !strings.HasPrefix(ctype, "application/json") || json.Unmarshal([]byte(got), &msg) != nil || msg.Error.Code != -32600 {
			t.Errorf("%s: HTTP %d %s %q, want 400 with a JSON-RPC error -32600", name, status, ctype, got)
		}
	}
	// And served methods are served.
	if status, _, body := post("2025-11-25", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); status != http.StatusOK || !strings.Contains(body, `"create_ticket"`) {
		t.Errorf("tools/list: HTTP %d %.200s", status, body)
	}
}
