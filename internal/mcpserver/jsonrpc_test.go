package mcpserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Every malformed JSON-RPC body gets a JSON-RPC error object with HTTP 400,
// on both protocol revisions: -32700 when it is not JSON (or nests too
// deep to read), -32600 when it is JSON but not a message the server takes.
// None of them is a plain-text body, and none writes anything.
func TestMalformedJSONRPCGetsJSONRPCErrors(t *testing.T) {
	e := newEnv(t, envOptions{})
	deep := strings.Repeat("[", 1001) + strings.Repeat("]", 1001)
	ok := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	cases := []struct {
		name, body string
		code       int
		id         string // the id answered: the request's when it could be read
	}{
		{"invalid JSON", `{"jsonrpc":"2.0","id":1,`, -32700, "null"},
		{"empty body", ``, -32700, "null"},
		{"trailing garbage", ok + ` x`, -32700, "null"},
		{"two messages", ok + ok, -32700, "null"},
		{"nesting deeper than 1000", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":` + deep + `}}`, -32700, "null"},
		{"a bare number", `1`, -32600, "null"},
		{"a bare string", `"tools/list"`, -32600, "null"},
		{"null", `null`, -32600, "null"},
		{"empty batch", `[]`, -32600, "null"},
		{"one-element batch", `[` + ok + `]`, -32600, "null"},
		{"two-element batch", `[` + ok + `,` + ok + `]`, -32600, "null"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":5,"method":"tools/list"}`, -32600, "5"},
		{"no jsonrpc", `{"id":"a","method":"tools/list"}`, -32600, `"a"`},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"tools/list"}`, -32600, "null"},
		{"id object", `{"jsonrpc":"2.0","id":{},"method":"tools/list"}`, -32600, "null"},
		{"id fraction", `{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`, -32600, "null"},
		{"method a number", `{"jsonrpc":"2.0","id":3,"method":5}`, -32600, "3"},
		{"neither method nor result", `{"jsonrpc":"2.0","id":4}`, -32600, "4"},
	}
	for _, version := range []string{legacyVersion, modernVersion} {
		for _, c := range cases {
			t.Run(version+"/"+c.name, func(t *testing.T) {
				req, _ := http.NewRequest(http.MethodPost, e.URL, strings.NewReader(c.body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("MCP-Protocol-Version", version)
				if version == modernVersion {
					req.Header.Set("Mcp-Method", "tools/list")
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				raw, _ := io.ReadAll(resp.Body)
				var msg struct {
					JSONRPC string          `json:"jsonrpc"`
					ID      json.RawMessage `json:"id"`
					Error   *struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
					} `json:"error"`
				}
				if err := json.Unmarshal(raw, &msg); err != nil || msg.Error == nil || msg.JSONRPC != "2.0" ||
					!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
					t.Fatalf("HTTP %d %s %q: want a JSON-RPC error object", resp.StatusCode, resp.Header.Get("Content-Type"), raw)
				}
				if resp.StatusCode != http.StatusBadRequest || msg.Error.Code != c.code || string(msg.ID) != c.id {
					t.Errorf("HTTP %d code %d id %s (%q), want HTTP 400 code %d id %s", resp.StatusCode, msg.Error.Code, msg.ID, msg.Error.Message, c.code, c.id)
				}
				if msg.Error.Message == "" || strings.Contains(msg.Error.Message, "jsonrpc2.") || strings.Contains(msg.Error.Message, "Go value") {
					t.Errorf("message %q: want a reason in the protocol's words", msg.Error.Message)
				}
			})
		}
	}
	if got := e.Witness(t); got["tickets"] != 0 || got["requests"] != 0 || got["events"] != 0 {
		t.Fatalf("malformed messages wrote rows: %v", got)
	}
}
