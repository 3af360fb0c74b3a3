package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

// The declared capabilities match the methods served, on both revisions
// (found by the conformance suite: prompts/list and resources/list were
// answered but not declared, and tools.listChanged was declared although the
// tool set never changes and a stateless JSON server has no stream for it).
func TestCapabilitiesMatchWhatIsServed(t *testing.T) {
	url := capsServer(t)
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			var caps map[string]json.RawMessage
			if version == "2025-11-25" {
				var init struct {
					Capabilities map[string]json.RawMessage `json:"capabilities"`
				}
				capsRPC(t, url, version, "initialize", map[string]any{
					"protocolVersion": version, "capabilities": map[string]any{},
					"clientInfo": map[string]any{"name": "caps-test", "version": "1"},
				}, &init, nil)
				caps = init.Capabilities
			} else {
				var disc struct {
					Capabilities map[string]json.RawMessage `json:"capabilities"`
				}
				capsRPC(t, url, version, "server/discover", map[string]any{}, &disc, nil)
				caps = disc.Capabilities
			}
			for name, want := range map[string]string{"tools": "{}", "prompts": "{}", "resources": "{}"} {
				if got := string(caps[name]); got != want {
					t.Errorf("capabilities.%s = %s, want %s (no listChanged, no subscribe)", name, got, want)
				}
			}
			if got := string(caps["completions"]); got != "{}" {
				t.Errorf("capabilities.completions = %s, want {} (completion.go serves completion/complete)", got)
			}

			// Each declared list method is served: a list, not an error.
			for method, field := range map[string]string{"tools/list": "tools", "prompts/list": "prompts",
				"resources/list": "resources", "resources/templates/list": "resourceTemplates"} {
				var res map[string]json.RawMessage
				capsRPC(t, url, version, method, map[string]any{}, &res, nil)
				if _, ok := res[field]; !ok {
					t.Errorf("%s result = %v, want a %s list", method, res, field)
				}
			}
			// completion/complete is served: an unknown prompt is refused
			// as invalid params, not as an unknown method.
			var rpcErr struct{ Code int }
			capsRPC(t, url, version, "completion/complete", map[string]any{
				"ref":      map[string]any{"type": "ref/prompt", "name": "none"},
				"argument": map[string]any{"name": "a", "value": "b"},
			}, nil, &rpcErr)
			if rpcErr.Code != -32602 {
				t.Errorf("completion/complete error code = %d, want -32602 (invalid params)", rpcErr.Code)
			}
			// What is not declared is not served.
			if version == "2025-11-25" {
				rpcErr.Code = 0
				capsRPC(t, url, version, "resources/subscribe", map[string]any{"uri": "ticket://inbox-1"}, nil, &rpcErr)
				if rpcErr.Code != -32601 {
					t.Errorf("resources/subscribe error code = %d, want -32601 (subscribe is not declared)", rpcErr.Code)
				}
			}
		})
	}
}

func capsServer(t *testing.T) string {
	t.Helper()
	st, err := sqlite.Open(context.Background(), t.TempDir()+"/ledger.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := board.NewService(board.Config{Store: st, BaseURL: "http://board.test"})
	if err != nil {
		t.Fatal(err)
	}
	server := mcpserver.NewServer(svc, mcpserver.Options{})
	ts := httptest.NewServer(mcpserver.Handler(server, mcpserver.HandlerOptions{}))
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

// capsRPC posts one JSON-RPC request at a revision's wire (2026-07-28: the
// Mcp-Method header and per-request _meta) and decodes its result or error.
func capsRPC(t *testing.T, url, version, method string, params map[string]any, result, rpcErr any) {
	t.Helper()
	if version >= "2026-07-28" {
		params["_meta"] = map[string]any{
			"io.modelcontextprotocol/protocolVersion":    version,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "caps-test", "version": "1"},
		}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header = capsHeaders(version, method)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatalf("%s: HTTP %d, body not JSON-RPC: %v", method, resp.StatusCode, err)
	}
	switch {
	case result != nil && msg.Error != nil:
		t.Fatalf("%s: error %s, want a result", method, msg.Error)
	case rpcErr != nil && msg.Error == nil:
		t.Fatalf("%s: result %s, want an error", method, msg.Result)
	case result != nil:
		if err := json.Unmarshal(msg.Result, result); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	default:
		if err := json.Unmarshal(msg.Error, rpcErr); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
}

func capsHeaders(version, method string) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	if method != "initialize" {
		h.Set("MCP-Protocol-Version", version)
	}
	if version >= "2026-07-28" {
		h.Set("Mcp-Method", method)
	}
	return h
}
