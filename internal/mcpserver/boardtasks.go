package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// boardTasks serves the tasks extension from the board's tasks: every
// tasks/* call is authorised against the caller's principal (another
// caller's task is "not found"), and read from the store.
type boardTasks struct {
	svc *board.Service
	who PrincipalFunc
}

func (b boardTasks) ctx(ctx context.Context, extra *mcp.RequestExtra) context.Context {
	return board.WithPrincipal(ctx, b.who(ctx, extra))
}

func (b boardTasks) GetTask(ctx context.Context, extra *mcp.RequestExtra, id string) (TaskState, error) {
	v, err := b.svc.GetTask(b.ctx(ctx, extra), board.TaskIDInput{TaskID: id})
	if board.ErrorCode(err) == board.CodeNotFound {
		return TaskState{}, ErrTaskNotFound
	}
	if err != nil {
		return TaskState{}, err
	}
	st := TaskState{
		ID:            v.TaskID,
		Status:        string(v.Status),
		StatusMessage: v.StatusMessage,
		CreatedAt:     v.CreatedAt,
		LastUpdatedAt: v.LastUpdatedAt,
		TTL:           time.Duration(v.TTLMs) * time.Millisecond,
		PollInterval:  time.Duration(v.PollIntervalMs) * time.Millisecond,
	}
	switch {
	case v.Status == board.TaskCompleted && len(v.Result) > 0:
		st.Result = &mcp.CallToolResult{StructuredContent: v.Result, Content: []mcp.Content{&mcp.TextContent{Text: string(v.Result)}}}
	case v.Status == board.TaskFailed && v.Error != nil:
		st.Error = &jsonrpc.Error{Code: int64(v.Error.Code), Message: v.StatusMessage}
	}
	return st, nil
}

func (b boardTasks) CancelTask(ctx context.Context, extra *mcp.RequestExtra, id string) error {
	_, err := b.svc.CancelTask(b.ctx(ctx, extra), board.TaskIDInput{TaskID: id})
	if board.ErrorCode(err) == board.CodeNotFound {
		return ErrTaskNotFound
	}
	return err
}

// importTaskOf: an import that is still working is a task; one that
// finished within the call answers its result.
func importTaskOf(res *mcp.CallToolResult) (string, bool) {
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return "", false
	}
	var r board.ImportResult
	if json.Unmarshal(raw, &r) != nil || r.TaskID == "" || r.Status.Terminal() {
		return "", false
	}
	return r.TaskID, true
}

// installBoardTasks adds the tasks extension for the board's task tools,
// and extra's (the conformance test server's fixtures) after them.
func installBoardTasks(s *mcp.Server, svc *board.Service, who PrincipalFunc, extra *TasksConfig) {
	cfg := TasksConfig{
		Backend: boardTasks{svc: svc, who: who},
		Tools:   map[string]TaskTool{"import_tickets": {Support: TaskOptional, TaskOf: importTaskOf}},
	}
	if extra != nil {
		for name, tool := range extra.Tools {
			cfg.Tools[name] = tool
		}
		cfg.Backend = backends{cfg.Backend, extra.Backend}
	}
	err := InstallTasks(s, cfg)
	if err != nil {
		panic(err) // only a clash with a standard method, a programming error
	}
}

// backends serve tasks from the first backend that knows the id.
type backends []TaskBackend

func (bs backends) GetTask(ctx context.Context, extra *mcp.RequestExtra, id string) (TaskState, error) {
	for _, b := range bs {
		st, err := b.GetTask(ctx, extra, id)
		if !errors.Is(err, ErrTaskNotFound) {
			return st, err
		}
	}
	return TaskState{}, ErrTaskNotFound
}

func (bs backends) CancelTask(ctx context.Context, extra *mcp.RequestExtra, id string) error {
	for _, b := range bs {
		if err := b.CancelTask(ctx, extra, id); !errors.Is(err, ErrTaskNotFound) {
			return err
		}
	}
	return ErrTaskNotFound
}

func (bs backends) UpdateTask(ctx context.Context, extra *mcp.RequestExtra, id string, responses map[string]json.RawMessage) error {
	for _, b := range bs {
		if _, err := b.GetTask(ctx, extra, id); errors.Is(err, ErrTaskNotFound) {
			continue
		}
		if in, ok := b.(TaskInputs); ok {
			return in.UpdateTask(ctx, extra, id, responses)
		}
		return nil
	}
	return ErrTaskNotFound
}
