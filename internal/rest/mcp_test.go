package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP beside REST: the same server's /mcp, reached by the go-sdk client
// with a bearer token, to hold the two surfaces to one ledger and one text.

const (
	legacyVersion = "2025-11-25" // initialize handshake
	modernVersion = "2026-07-28" // server/discover, per-request _meta
)

// bearer adds Authorization: Bearer to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// mcpSession connects the go-sdk client to base's /mcp with token.
func mcpSession(t *testing.T, base, token, version string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "rest-tests", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}, MaxRetries: -1, DisableStandaloneSSE: true},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect %s: %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// tool calls a tool; it returns the structured result, or the text of a
// tool error.
func tool(t *testing.T, cs *mcp.ClientSession, name string, args any) (json.RawMessage, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	if res.IsError {
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				return nil, tc.Text
			}
		}
		return nil, "(a tool error without text)"
	}
	raw, _ := json.Marshal(res.StructuredContent)
	return raw, ""
}
