package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ticket-ledger/ticket-ledger/internal/obs"
)

// The MCP tasks extension (io.modelcontextprotocol/tasks, SEP-2663), built
// on go-sdk's hooks since v1.8.0 has no tasks: a receiving middleware on
// tools/call turns the result of a task-supporting tool into a
// CreateTaskResult when the request opted in, custom methods serve
// tasks/get, tasks/update and tasks/cancel from a TaskBackend (the store,
// so any instance answers), and the capability is declared under
// capabilities.extensions. The HTTP side (Mcp-Name on tasks/*) is in
// taskheaders.go.

// TasksExtension is the extension's identifier.
const TasksExtension = "io.modelcontextprotocol/tasks"

// JSON-RPC error codes of the extension and SEP-2575/SEP-2243.
const (
	codeHeaderMismatch            = -32020
	codeMissingRequiredCapability = -32021
	methodTasksGet                = "tasks/get"
	methodTasksUpdate             = "tasks/update"
	methodTasksCancel             = "tasks/cancel"
	resultTypeComplete            = "complete"
	resultTypeTask                = "task"
)

// TaskSupport says how a tool relates to tasks.
type TaskSupport int

const (
	// TaskOptional: with the extension the call may become a task; without
	// it the tool answers a normal result.
	TaskOptional TaskSupport = iota + 1
	// TaskRequired: the tool only works as a task; without the extension
	// the call is refused with -32021 before the tool runs.
	TaskRequired
)

// TaskState is a task as the tasks layer reports it.
type TaskState struct {
	ID            string
	Status        string // working, input_required, completed, failed, cancelled
	StatusMessage string
	CreatedAt     time.Time
	LastUpdatedAt time.Time
	TTL           time.Duration // 0: unlimited (ttlMs null)
	PollInterval  time.Duration
	// Result is the tool's result, set when completed.
	Result *mcp.CallToolResult
	// Error is the JSON-RPC error, set when failed.
	Error *jsonrpc.Error
	// InputRequests are the outstanding requests to the client, set when
	// input_required (keys are never reused within a task).
	InputRequests map[string]any
}

// ErrTaskNotFound is what a TaskBackend returns for a task the caller may
// not see, whatever the reason.
var ErrTaskNotFound = errors.New("task not found")

// TaskBackend serves the tasks the caller may see.
type TaskBackend interface {
	// GetTask returns the task, or ErrTaskNotFound.
	GetTask(ctx context.Context, extra *mcp.RequestExtra, id string) (TaskState, error)
	// CancelTask asks the task to stop (cooperative); ErrTaskNotFound for
	// a task the caller may not see. Cancelling an ended task is no error.
	CancelTask(ctx context.Context, extra *mcp.RequestExtra, id string) error
}

// TaskInputs is implemented by a backend whose tasks ask for input: it
// takes tasks/update's responses (unknown or answered keys are ignored).
type TaskInputs interface {
	UpdateTask(ctx context.Context, extra *mcp.RequestExtra, id string, responses map[string]json.RawMessage) error
}

// TaskTool is a task-supporting tool.
type TaskTool struct {
	Support TaskSupport
	// TaskOf tells whether the tool's result stands for a task still
	// running, and its id. A result that is not a task (an immediate
	// answer, a tool error) goes to the client as it is.
	TaskOf func(res *mcp.CallToolResult) (id string, ok bool)
}

// TasksConfig configures InstallTasks.
type TasksConfig struct {
	Backend TaskBackend
	Tools   map[string]TaskTool
}

// InstallTasks adds the tasks extension to s. Call it before serving.
func InstallTasks(s *mcp.Server, cfg TasksConfig) error {
	t := &tasksLayer{cfg: cfg}
	s.AddReceivingMiddleware(t.middleware)
	if err := mcp.AddReceivingCustomMethod(s, methodTasksGet, t.get); err != nil {
		return err
	}
	if err := mcp.AddReceivingCustomMethod(s, methodTasksUpdate, t.update); err != nil {
		return err
	}
	return mcp.AddReceivingCustomMethod(s, methodTasksCancel, t.cancel)
}

type tasksLayer struct{ cfg TasksConfig }

// taskParams are the params of tasks/get, tasks/update and tasks/cancel.
type taskParams struct {
	mcp.ParamsBase
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
}

// taskFields are the Task fields every task result carries.
type taskFields struct {
	TaskID         string `json:"taskId"`
	Status         string `json:"status"`
	StatusMessage  string `json:"statusMessage,omitempty"`
	CreatedAt      string `json:"createdAt"`
	LastUpdatedAt  string `json:"lastUpdatedAt"`
	TTLMs          *int64 `json:"ttlMs"`
	PollIntervalMs int64  `json:"pollIntervalMs,omitempty"`
}

// CreateTaskResult answers a tools/call that became a task.
type CreateTaskResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	taskFields
}

// GetTaskResult answers tasks/get: the task, with the tool's result once
// completed or the JSON-RPC error once failed.
type GetTaskResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	taskFields
	Result        *mcp.CallToolResult `json:"result,omitempty"`
	Error         *jsonrpc.Error      `json:"error,omitempty"`
	InputRequests map[string]any      `json:"inputRequests,omitempty"`
}

// ackResult answers tasks/update and tasks/cancel: an empty acknowledgement.
type ackResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

func fieldsOf(st TaskState) taskFields {
	f := taskFields{
		TaskID:         st.ID,
		Status:         st.Status,
		StatusMessage:  st.StatusMessage,
		CreatedAt:      st.CreatedAt.UTC().Format(time.RFC3339Nano),
		LastUpdatedAt:  st.LastUpdatedAt.UTC().Format(time.RFC3339Nano),
		PollIntervalMs: st.PollInterval.Milliseconds(),
	}
	if st.TTL > 0 {
		ms := st.TTL.Milliseconds()
		f.TTLMs = &ms
	}
	return f
}

// middleware gates the task methods on the extension and turns task
// results of tools/call into CreateTaskResult.
func (t *tasksLayer) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case methodTasksGet, methodTasksUpdate, methodTasksCancel:
			if !optedIn(req) {
				return nil, missingCapability(method + " needs the tasks extension")
			}
			return next(context.WithValue(ctx, extraKey{}, req.GetExtra()), method, req)
		case "tools/call":
		default:
			return next(ctx, method, req)
		}
		call, ok := req.(*mcp.CallToolRequest)
		if !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		tool, ok := t.cfg.Tools[call.Params.Name]
		if !ok {
			return next(ctx, method, req)
		}
		withExt := optedIn(req)
		if tool.Support == TaskRequired && !withExt {
			return nil, missingCapability(fmt.Sprintf("tool %q runs only as a task", call.Params.Name))
		}
		res, err := next(ctx, method, req)
		if err != nil || !withExt {
			return res, err
		}
		result, ok := res.(*mcp.CallToolResult)
		if !ok || result.IsError || tool.TaskOf == nil {
			return res, nil
		}
		id, ok := tool.TaskOf(result)
		if !ok {
			return res, nil // finished within the call: the result itself
		}
		// The task is durable before this answer: read it back as the
		// client will with tasks/get.
		st, err := t.cfg.Backend.GetTask(ctx, call.Extra, id)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("the task %s was created but cannot be read back: %v", id, err)}
		}
		return &CreateTaskResult{ResultType: resultTypeTask, taskFields: fieldsOf(st)}, nil
	}
}

func (t *tasksLayer) get(ctx context.Context, ss *mcp.ServerSession, p *taskParams) (*GetTaskResult, error) {
	st, err := t.lookup(ctx, p)
	if err != nil {
		return nil, err
	}
	res := &GetTaskResult{ResultType: resultTypeComplete, taskFields: fieldsOf(st)}
	switch st.Status {
	case "completed":
		res.Result = st.Result
	case "failed":
		res.Error = st.Error
	case "input_required":
		res.InputRequests = st.InputRequests
	}
	return res, nil
}

// update acknowledges input responses; the tasks here never ask for input,
// so there is nothing outstanding and every response is ignored (as the
// extension says for keys that are not outstanding).
func (t *tasksLayer) update(ctx context.Context, ss *mcp.ServerSession, p *taskParams) (*ackResult, error) {
	if _, err := t.lookup(ctx, p); err != nil {
		return nil, err
	}
	if in, ok := t.cfg.Backend.(TaskInputs); ok && len(p.InputResponses) > 0 {
		if err := in.UpdateTask(ctx, extraFrom(ctx), p.TaskID, p.InputResponses); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
	}
	return &ackResult{ResultType: resultTypeComplete}, nil
}

func (t *tasksLayer) cancel(ctx context.Context, ss *mcp.ServerSession, p *taskParams) (*ackResult, error) {
	if p == nil || p.TaskID == "" {
		return nil, invalidTask("")
	}
	obs.SetTaskID(ctx, p.TaskID) // the request's log line
	if err := t.cfg.Backend.CancelTask(ctx, extraFrom(ctx), p.TaskID); err != nil {
		if errors.Is(err, ErrTaskNotFound) {
			return nil, invalidTask(p.TaskID)
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	return &ackResult{ResultType: resultTypeComplete}, nil
}

func (t *tasksLayer) lookup(ctx context.Context, p *taskParams) (TaskState, error) {
	if p == nil || p.TaskID == "" {
		return TaskState{}, invalidTask("")
	}
	obs.SetTaskID(ctx, p.TaskID) // the request's log line
	st, err := t.cfg.Backend.GetTask(ctx, extraFrom(ctx), p.TaskID)
	if errors.Is(err, ErrTaskNotFound) {
		return TaskState{}, invalidTask(p.TaskID)
	}
	if err != nil {
		return TaskState{}, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	return st, nil
}

func invalidTask(id string) error {
	if id == "" {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "taskId is required: pass the taskId of a CreateTaskResult"}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("task %q not found (unknown, expired, or not yours)", id)}
}

func missingCapability(why string) error {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{TasksExtension: map[string]any{}}}})
	return &jsonrpc.Error{Code: codeMissingRequiredCapability, Message: "missing required client capability: " + why +
		"; declare the " + TasksExtension + " extension in _meta[\"io.modelcontextprotocol/clientCapabilities\"].extensions", Data: data}
}

// optedIn reports whether the request declares the extension: in its
// per-request client capabilities (2026-07-28), or else in the session's
// initialize (2025-11-25, stateful sessions only).
func optedIn(req mcp.Request) bool {
	if p := req.GetParams(); p != nil {
		if caps, ok := p.GetMeta()[mcp.MetaKeyClientCapabilities].(map[string]any); ok {
			ext, _ := caps["extensions"].(map[string]any)
			_, ok := ext[TasksExtension]
			return ok
		}
	}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		if ip := ss.InitializeParams(); ip != nil && ip.Capabilities != nil {
			_, ok := ip.Capabilities.Extensions[TasksExtension]
			return ok
		}
	}
	return false
}

// The custom methods' handlers get no RequestExtra; the middleware puts it
// in the context for them.
type extraKey struct{}

func extraFrom(ctx context.Context) *mcp.RequestExtra {
	e, _ := ctx.Value(extraKey{}).(*mcp.RequestExtra)
	return e
}
