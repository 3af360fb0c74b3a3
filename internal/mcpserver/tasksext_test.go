package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
)

// parkedRunner takes tasks and runs nothing, so a test decides when the
// chunk worker runs (svc.RunImport) and sees every state in between.
type parkedRunner struct{}

func (parkedRunner) Reference(board.Task) string             { return "" }
func (parkedRunner) Start(context.Context, board.Task) error { return nil }
func (parkedRunner) Stop(context.Context, board.Task) error  { return nil }

// rpc is one raw JSON-RPC exchange over HTTP at 2026-07-28, so the test
// controls _meta and the headers exactly.
type rpc struct {
	t   *testing.T
	url string
}

type rpcAnswer struct {
	HTTP   int
	Result map[string]any
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
}

func (r rpc) call(method string, params map[string]any, withTasks bool, headers map[string]string) rpcAnswer {
	r.t.Helper()
	caps := map[string]any{}
	if withTasks {
		caps["extensions"] = map[string]any{mcpserver.TasksExtension: map[string]any{}}
	}
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    modernVersion,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": caps,
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, r.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", modernVersion)
	req.Header.Set("Mcp-Method", method)
	if name, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", name)
	}
	if id, ok := params["taskId"].(string); ok {
		req.Header.Set("Mcp-Name", id)
	}
	for k, v := range headers {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out rpcAnswer
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		r.t.Fatalf("%s: answer is not JSON-RPC: %v", method, err)
	}
	out.HTTP = resp.StatusCode
	return out
}

func importArgs(id string, n int) map[string]any {
	rows := make([]map[string]any, n)
	for i := range rows {
		rows[i] = map[string]any{"title": fmt.Sprintf("row %d", i)}
	}
	return map[string]any{"name": "import_tickets", "arguments": map[string]any{"request_id": id, "workspace": "inbox", "tickets": rows}}
}

func TestTasksExtension(t *testing.T) {
	onEachStore(t, envOptions{runner: parkedRunner{}}, func(t *testing.T, e *env) {
		r := rpc{t: t, url: e.URL}

		disc := r.call("server/discover", nil, false, nil)
		caps, _ := disc.Result["capabilities"].(map[string]any)
		ext, _ := caps["extensions"].(map[string]any)
		if _, ok := ext[mcpserver.TasksExtension]; !ok {
			t.Fatalf("server/discover capabilities = %v, want extensions[%s]", caps, mcpserver.TasksExtension)
		}

		created := r.call("tools/call", importArgs("ext-1", 250), true, nil)
		res := created.Result
		if res["resultType"] != "task" || res["status"] != "working" || res["taskId"] == nil || res["task"] != nil || res["content"] != nil {
			t.Fatalf("import with the extension = %v, want a flat CreateTaskResult", res)
		}
		for _, f := range []string{"createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"} {
			if res[f] == nil {
				t.Errorf("CreateTaskResult lacks %s", f)
			}
		}
		if ttl, _ := res["ttlMs"].(float64); ttl != float64(int64(ttl)) || ttl <= 0 {
			t.Errorf("ttlMs = %v, want a positive integer", res["ttlMs"])
		}
		id := res["taskId"].(string)

		// Durable before the answer: tasks/get resolves at once.
		got := r.call("tasks/get", map[string]any{"taskId": id}, true, nil)
		if got.Error != nil || got.Result["status"] != "working" || got.Result["resultType"] != "complete" || got.Result["result"] != nil {
			t.Fatalf("tasks/get = %+v", got)
		}

		// Without the extension: a normal result, and tasks/* are refused.
		plain := r.call("tools/call", importArgs("ext-2", 250), false, nil)
		sc, _ := plain.Result["structuredContent"].(map[string]any)
		if plain.Result["resultType"] == "task" || sc["status"] != "working" || sc["task_id"] == nil {
			t.Fatalf("import without the extension = %v, want a tool result {request_id, task_id, status, progress}", plain.Result)
		}
		for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
			a := r.call(m, map[string]any{"taskId": id, "inputResponses": map[string]any{}}, false, nil)
			if a.Error == nil || a.Error.Code != -32021 || !strings.Contains(string(a.Error.Data), mcpserver.TasksExtension) {
				t.Errorf("%s without the extension = %+v, want -32021 naming the extension", m, a)
			}
		}

		// Mcp-Name must name the task.
		for _, h := range []map[string]string{{"Mcp-Name": ""}, {"Mcp-Name": "another-task"}} {
			a := r.call("tasks/get", map[string]any{"taskId": id}, true, h)
			if a.HTTP != http.StatusBadRequest || a.Error == nil || a.Error.Code != -32020 {
				t.Errorf("tasks/get with Mcp-Name %q = HTTP %d %+v, want 400 and -32020", h["Mcp-Name"], a.HTTP, a.Error)
			}
		}

		// Unknown ids and another principal's task are invalid params alike.
		bob := mcpserver.NewServer(e.Svc, mcpserver.Options{Principal: mcpserver.StaticPrincipal(board.Principal{Author: "ai:bob", Source: board.SourceMCP})})
		bobSrv := httptest.NewServer(mcpserver.Handler(bob, mcpserver.HandlerOptions{}))
		defer bobSrv.Close()
		for _, c := range []struct {
			r  rpc
			id string
		}{{r, "00000000-0000-4000-8000-000000000000"}, {rpc{t: t, url: bobSrv.URL + "/mcp"}, id}} {
			for _, m := range []string{"tasks/get", "tasks/cancel", "tasks/update"} {
				a := c.r.call(m, map[string]any{"taskId": c.id, "inputResponses": map[string]any{}}, true, nil)
				if a.Error == nil || a.Error.Code != -32602 {
					t.Errorf("%s of %s = %+v, want -32602", m, c.id, a)
				}
			}
		}

		if a := r.call("tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"x": map[string]any{}}}, true, nil); a.Error != nil || len(withoutMeta(a.Result)) != 1 || a.Result["resultType"] != "complete" {
			t.Errorf("tasks/update = %+v, want an empty ack", a)
		}

		// Completed: the result is inlined as the tool's result.
		if _, err := e.Svc.RunImport(context.Background(), id, 0); err != nil {
			t.Fatal(err)
		}
		done := r.call("tasks/get", map[string]any{"taskId": id}, true, nil)
		inner, _ := done.Result["result"].(map[string]any)
		innerSC, _ := inner["structuredContent"].(map[string]any)
		if done.Result["status"] != "completed" || innerSC["imported"] != float64(250) || inner["content"] == nil || done.Result["error"] != nil {
			t.Fatalf("tasks/get of the completed import = %v", done.Result)
		}

		// Cancel: an empty ack; the task settles to cancelled; again, the same ack.
		third := r.call("tools/call", importArgs("ext-3", 300), true, nil).Result["taskId"].(string)
		for range 2 {
			a := r.call("tasks/cancel", map[string]any{"taskId": third}, true, nil)
			if a.Error != nil || len(withoutMeta(a.Result)) != 1 || a.Result["resultType"] != "complete" {
				t.Errorf("tasks/cancel = %+v, want only resultType complete", a)
			}
		}
		if st := r.call("tasks/get", map[string]any{"taskId": third}, true, nil).Result["status"]; st != "cancelled" {
			t.Errorf("after tasks/cancel the task is %v", st)
		}

		// Failed: the JSON-RPC error is inlined, no result.
		fourth := r.call("tools/call", importArgs("ext-4", 300), true, nil).Result["taskId"].(string)
		if _, err := e.Svc.FailTask(context.Background(), fourth, "storage gave up"); err != nil {
			t.Fatal(err)
		}
		failed := r.call("tasks/get", map[string]any{"taskId": fourth}, true, nil).Result
		errObj, _ := failed["error"].(map[string]any)
		if failed["status"] != "failed" || errObj["code"] != float64(-32603) || failed["result"] != nil || !strings.Contains(fmt.Sprint(errObj["message"]), "storage gave up") {
			t.Errorf("tasks/get of the failed import = %v", failed)
		}

		// A small import finishes inside the call: a normal result even with the extension.
		small := r.call("tools/call", importArgs("ext-5", 3), true, nil).Result
		ssc, _ := small["structuredContent"].(map[string]any)
		if small["resultType"] == "task" || ssc["status"] != "completed" {
			t.Errorf("small import with the extension = %v, want the completed result", small)
		}
		// Removed v1 methods do not exist.
		for _, m := range []string{"tasks/result", "tasks/list"} {
			if a := r.call(m, map[string]any{"taskId": id}, true, nil); a.Error == nil || a.Error.Code != -32601 {
				t.Errorf("%s = %+v, want -32601", m, a)
			}
		}
	})
}

// withoutMeta drops _meta (the SDK's serverInfo) from a result.
func withoutMeta(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if k != "_meta" {
			out[k] = v
		}
	}
	return out
}
