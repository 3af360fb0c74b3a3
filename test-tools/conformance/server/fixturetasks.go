package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
)

// fixtureTasks are the tasks of the fixture tools, in memory: they show the
// tasks layer's wire format with tools that sleep, fail or ask for input,
// which the board's one task tool (import_tickets) never does.
type fixtureTasks struct {
	mu    sync.Mutex
	tasks map[string]*fixtureTask
}

type fixtureTask struct {
	state  mcpserver.TaskState
	cancel context.CancelFunc
	input  chan map[string]json.RawMessage
}

const taskMetaKey = "conformance-server/task"

func newFixtureTasks() *fixtureTasks { return &fixtureTasks{tasks: map[string]*fixtureTask{}} }

func (f *fixtureTasks) config() *mcpserver.TasksConfig {
	taskOf := func(res *mcp.CallToolResult) (string, bool) {
		id, ok := res.Meta[taskMetaKey].(string)
		return id, ok
	}
	return &mcpserver.TasksConfig{Backend: f, Tools: map[string]mcpserver.TaskTool{
		"slow_compute":        {Support: mcpserver.TaskOptional, TaskOf: taskOf},
		"failing_job":         {Support: mcpserver.TaskRequired, TaskOf: taskOf},
		"protocol_error_job":  {Support: mcpserver.TaskOptional, TaskOf: taskOf},
		"confirm_delete":      {Support: mcpserver.TaskOptional, TaskOf: taskOf},
		"multi_input":         {Support: mcpserver.TaskOptional, TaskOf: taskOf},
		"test_tool_with_task": {Support: mcpserver.TaskRequired, TaskOf: taskOf},
	}}
}

func optedIn(req *mcp.CallToolRequest) bool {
	caps := req.ClientCapabilities()
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[mcpserver.TasksExtension]
	return ok
}

// start creates a working task and runs work in the background; work ends
// the task through finish.
func (f *fixtureTasks) start(work func(ctx context.Context, t *fixtureTask)) *mcp.CallToolResult {
	var b [16]byte
	rand.Read(b[:])
	id := fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
	now := time.Now().UTC()
	ctx, cancel := context.WithCancel(context.Background())
	t := &fixtureTask{cancel: cancel, input: make(chan map[string]json.RawMessage, 8), state: mcpserver.TaskState{
		ID: id, Status: "working", StatusMessage: "working", CreatedAt: now, LastUpdatedAt: now,
		TTL: 10 * time.Minute, PollInterval: 200 * time.Millisecond,
	}}
	f.mu.Lock()
	f.tasks[id] = t
	f.mu.Unlock()
	go work(ctx, t)
	return &mcp.CallToolResult{Meta: mcp.Meta{taskMetaKey: id}, Content: []mcp.Content{&mcp.TextContent{Text: "task " + id}}}
}

// set changes a task's state unless it ended (a cancelled task stays so).
func (f *fixtureTasks) set(t *fixtureTask, change func(st *mcpserver.TaskState)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t.state.Status == "completed" || t.state.Status == "failed" || t.state.Status == "cancelled" {
		return
	}
	change(&t.state)
	t.state.LastUpdatedAt = time.Now().UTC()
}

func sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

func (f *fixtureTasks) slowCompute(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Seconds float64 `json:"seconds"`
		Label   string  `json:"label"`
	}
	json.Unmarshal(req.Params.Arguments, &in)
	d := time.Duration(in.Seconds * float64(time.Second))
	answer := text(fmt.Sprintf("computed %q after %v", in.Label, d))
	if !optedIn(req) {
		time.Sleep(d)
		return answer, nil
	}
	return f.start(func(ctx context.Context, t *fixtureTask) {
		if sleep(ctx, d) {
			f.set(t, func(st *mcpserver.TaskState) { st.Status, st.StatusMessage, st.Result = "completed", "done", answer })
		}
	}), nil
}

func (f *fixtureTasks) failingJob(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return f.start(func(ctx context.Context, t *fixtureTask) {
		if sleep(ctx, 300*time.Millisecond) {
			r := text("failing_job failed, as it always does")
			r.IsError = true
			f.set(t, func(st *mcpserver.TaskState) {
				st.Status, st.StatusMessage, st.Result = "completed", "the tool reported an error", r
			})
		}
	}), nil
}

func (f *fixtureTasks) protocolErrorJob(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return f.start(func(ctx context.Context, t *fixtureTask) {
		if sleep(ctx, 300*time.Millisecond) {
			f.set(t, func(st *mcpserver.TaskState) {
				st.Status, st.StatusMessage = "failed", "internal error"
				st.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "protocol_error_job failed with an internal error"}
			})
		}
	}), nil
}

func elicit(message, field, typ string) map[string]any {
	return map[string]any{"method": "elicitation/create", "params": map[string]any{
		"mode": "form", "message": message,
		"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{field: map[string]any{"type": typ}}, "required": []string{field}},
	}}
}

// askInputs parks a task in input_required with requests; each tasks/update
// answers some of them (unknown or answered keys are ignored); once all are
// answered the task completes.
func (f *fixtureTasks) askInputs(requests map[string]any, done string) *mcp.CallToolResult {
	return f.start(func(ctx context.Context, t *fixtureTask) {
		outstanding := map[string]any{}
		for k, v := range requests {
			outstanding[k] = v
		}
		snapshot := func() map[string]any {
			m := map[string]any{}
			for k, v := range outstanding {
				m[k] = v
			}
			return m
		}
		f.set(t, func(st *mcpserver.TaskState) {
			st.Status, st.StatusMessage, st.InputRequests = "input_required", "waiting for input", snapshot()
		})
		for len(outstanding) > 0 {
			select {
			case <-ctx.Done():
				return
			case responses := <-t.input:
				for k := range responses {
					delete(outstanding, k)
				}
				if len(outstanding) > 0 {
					f.set(t, func(st *mcpserver.TaskState) { st.InputRequests = snapshot() })
				}
			}
		}
		f.set(t, func(st *mcpserver.TaskState) {
			st.Status, st.StatusMessage, st.InputRequests, st.Result = "completed", done, nil, text(done)
		})
	})
}

func (f *fixtureTasks) confirmDelete(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return f.askInputs(map[string]any{"confirm-1": elicit("Delete the item?", "confirm", "boolean")}, "deleted"), nil
}

func (f *fixtureTasks) multiInput(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return f.askInputs(map[string]any{
		"name-1":  elicit("Your name?", "name", "string"),
		"color-1": elicit("Your favourite colour?", "color", "string"),
	}, "thanks for both answers"), nil
}

// withTask gathers a name by a multi round-trip request (SEP-2322), then
// continues as a task whose result names it.
func (f *fixtureTasks) withTask(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	answer, ok := req.Params.InputResponses["user_name"].(*mcp.ElicitResult)
	if !ok {
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"user_name": &mcp.ElicitParams{
			Message:         "What is your name?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"}},
		}}}, nil
	}
	name := fmt.Sprint(answer.Content["name"])
	return f.start(func(ctx context.Context, t *fixtureTask) {
		if sleep(ctx, 100*time.Millisecond) {
			f.set(t, func(st *mcpserver.TaskState) {
				st.Status, st.StatusMessage, st.Result = "completed", "done", text("Hello, "+name+"!")
			})
		}
	}), nil
}

func (f *fixtureTasks) get(id string) (*fixtureTask, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.tasks[id]
	return t, ok
}

func (f *fixtureTasks) GetTask(_ context.Context, _ *mcp.RequestExtra, id string) (mcpserver.TaskState, error) {
	t, ok := f.get(id)
	if !ok {
		return mcpserver.TaskState{}, mcpserver.ErrTaskNotFound
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return t.state, nil
}

func (f *fixtureTasks) CancelTask(_ context.Context, _ *mcp.RequestExtra, id string) error {
	t, ok := f.get(id)
	if !ok {
		return mcpserver.ErrTaskNotFound
	}
	f.set(t, func(st *mcpserver.TaskState) {
		st.Status, st.StatusMessage, st.InputRequests = "cancelled", "cancelled", nil
	})
	t.cancel()
	return nil
}

func (f *fixtureTasks) UpdateTask(_ context.Context, _ *mcp.RequestExtra, id string, responses map[string]json.RawMessage) error {
	t, ok := f.get(id)
	if !ok {
		return mcpserver.ErrTaskNotFound
	}
	select {
	case t.input <- responses:
	default:
	}
	return nil
}
