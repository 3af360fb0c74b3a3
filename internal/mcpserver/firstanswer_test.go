package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The first answer of a write is the value the service built, no longer the
// stored result decoded back (that cost every write a decoding). It must
// still be exactly what a retry replays, but for replayed: structured content
// and text alike, for every write tool, on both revisions.
func TestFirstAnswerIsWhatARetryReplays(t *testing.T) {
	onEachStoreAndRevision(t, func(t *testing.T, e *env, version string) {
		cs := connect(t, e.URL, version, nil)
		calls := []struct {
			tool string
			args map[string]any
		}{
			{"create_ticket", map[string]any{"request_id": "c1", "workspace": "inbox", "title": "First <answer> & more",
				"body": "body \u2028 <b>", "priority": "high", "owner": "ai:x", "due": "2030-01-02", "tags": []string{"b", "a"},
				"links": []map[string]any{{"kind": "url", "ref": "https://example.com/?a=1&b=2", "title": "x"}}}},
			{"update_ticket", map[string]any{"request_id": "u1", "id": "inbox-1", "title": "Changed", "owner": nil}},
			{"update_ticket", map[string]any{"request_id": "u2", "id": "inbox-1", "title": "Changed"}}, // changes nothing
			{"move_ticket", map[string]any{"request_id": "m1", "id": "inbox-1", "status": "done", "reason": "finished"}},
			{"add_note", map[string]any{"request_id": "n1", "id": "inbox-1", "body": "a note"}},
		}
		for _, c := range calls {
			first := callRaw(t, cs, c.tool, c.args)
			retry := callRaw(t, cs, c.tool, c.args)
			if first.IsError || retry.IsError {
				t.Fatalf("%s %v: %s %s", c.tool, c.args["request_id"], errorText(first), errorText(retry))
			}
			want := structured(t, retry)
			if want["replayed"] != true {
				t.Fatalf("%s: retry not replayed: %v", c.tool, want)
			}
			want["replayed"] = false
			wantJSON, _ := json.Marshal(want)
			gotJSON, _ := json.Marshal(structured(t, first))
			if !bytes.Equal(gotJSON, wantJSON) {
				t.Errorf("%s: first answer\n%s\nretry (replayed unset)\n%s", c.tool, gotJSON, wantJSON)
			}
			// The text copy is the structured content's JSON.
			var fromText map[string]any
			if err := json.Unmarshal([]byte(first.Content[0].(*mcp.TextContent).Text), &fromText); err != nil {
				t.Fatal(err)
			}
			textJSON, _ := json.Marshal(fromText)
			if !bytes.Equal(textJSON, gotJSON) {
				t.Errorf("%s: text %s differs from structured content %s", c.tool, textJSON, gotJSON)
			}
		}
	})
}

func structured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
