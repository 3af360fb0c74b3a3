package board

import (
	"context"
	"errors"
	"time"
)

// TaskIDInput names a task.
type TaskIDInput struct {
	TaskID string `json:"task_id" jsonschema:"the task_id that import_tickets (or find_request) returned"`
}

// MaxTaskIDLength bounds a task id (ours are 36-character UUIDs).
const MaxTaskIDLength = 64

func validTaskID(id string) bool {
	if id == "" || len(id) > MaxTaskIDLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// TaskNotFound is the one answer for a task the caller may not see, for
// whatever reason (never existed, expired, another caller's): nothing
// tells them apart.
func TaskNotFound(id string) *Error {
	return Errorf(CodeNotFound, "task %q not found; task ids come from import_tickets, and find_request with the import's request_id shows its task", clip(id))
}

// mayFollow says whether p may see and cancel task t: the principal whose
// call created it; a person, the tasks of their own agents (and their
// own under any credential); an admin, every task. An agent sees only its
// own: one agent of a person never sees another's work.
func mayFollow(p Principal, t Task) bool {
	switch {
	case p.Author == "":
		return false
	case RequestKey(p, t.Request.RequestID) == t.Request:
		return true
	case p.IsAI():
		return false
	}
	return p.IsAdmin() || t.OnBehalfOf == p.Author || t.Author == p.Author
}

// visibleTask reads a task the caller may see (mayFollow).
func (s *Service) visibleTask(ctx context.Context, id string) (Task, error) {
	if !validTaskID(id) {
		return Task{}, TaskNotFound(id)
	}
	p := PrincipalFrom(ctx)
	t, err := s.store.GetTask(ctx, id, s.now())
	if errors.Is(err, ErrNotFound) {
		return Task{}, TaskNotFound(id)
	}
	if err != nil {
		return Task{}, s.storeFailure(err)
	}
	if !mayFollow(p, t) {
		return Task{}, TaskNotFound(id)
	}
	if ok, err := s.taskWorkspaceReadable(ctx, p, t); err != nil || !ok {
		if err != nil {
			return Task{}, err
		}
		return Task{}, TaskNotFound(id)
	}
	return t, nil
}

// taskWorkspaceReadable: a task of a workspace since hidden from an AI
// caller is as absent as the workspace (docs/decisions.md, "Hidden after
// the fact"). People see every workspace.
func (s *Service) taskWorkspaceReadable(ctx context.Context, p Principal, t Task) (bool, error) {
	if !p.IsAI() {
		return true, nil
	}
	policy, err := s.store.WorkspacePolicy(ctx, t.Workspace)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, s.storeFailure(err)
	}
	return readable(p, policy), nil
}

// ListTasks lists the running tasks (working or waiting) the caller may
// follow, oldest first: for a person, what their agents are doing now,
// so they can cancel it; for an admin, everyone's.
func (s *Service) ListTasks(ctx context.Context) (TaskList, error) {
	p := PrincipalFrom(ctx)
	tasks, err := s.store.UnfinishedTasks(ctx, s.now())
	if err != nil {
		return TaskList{}, s.storeFailure(err)
	}
	list := TaskList{Tasks: []TaskView{}}
	for _, t := range tasks {
		if !mayFollow(p, t) {
			continue
		}
		ok, err := s.taskWorkspaceReadable(ctx, p, t)
		if err != nil {
			return TaskList{}, err
		}
		if ok {
			list.Tasks = append(list.Tasks, t.View())
		}
	}
	return list, nil
}

// TaskList is the running tasks a caller may follow.
type TaskList struct {
	Tasks []TaskView `json:"tasks" jsonschema:"running tasks, oldest first"`
}

// GetTask reports a task's status, progress and, once ended, its result.
func (s *Service) GetTask(ctx context.Context, in TaskIDInput) (TaskView, error) {
	t, err := s.visibleTask(ctx, in.TaskID)
	if err != nil {
		return TaskView{}, err
	}
	return t.View(), nil
}

// CancelTask marks an active task cancelled at once and asks its runner to
// stop. Rows imported before stay, and the status message counts them; a
// chunk that was committing concurrently either committed before (and is
// counted) or commits nothing. Cancelling an ended task changes nothing.
func (s *Service) CancelTask(ctx context.Context, in TaskIDInput) (TaskView, error) {
	t, err := s.visibleTask(ctx, in.TaskID)
	if err != nil {
		return TaskView{}, err
	}
	if t.Status.Terminal() {
		return t.View(), nil
	}
	ended, err := s.endTask(ctx, t, func(t *Task) { t.Status = TaskCancelled })
	if err != nil {
		return TaskView{}, err
	}
	if s.runner != nil && ended.Status == TaskCancelled {
		if err := s.runner.Stop(context.WithoutCancel(ctx), ended); err != nil {
			// The task is cancelled either way: its next chunk sees it.
			s.log.Warn("stopping a cancelled task's runner failed", "task", ended.ID, "err", err)
		}
	}
	return ended.View(), nil
}

// FailTask marks an active task failed with cause: what a runner does when
// RunImport reports a permanent error, or gave up retrying. It needs no
// principal (runners act for the task's creator).
func (s *Service) FailTask(ctx context.Context, taskID, cause string) (Task, error) {
	t, err := s.store.GetTask(ctx, taskID, s.now())
	if errors.Is(err, ErrNotFound) {
		return Task{}, Errorf(CodeNotFound, "task %q not found (expired or never created)", taskID)
	}
	if err != nil {
		return Task{}, s.storeFailure(err)
	}
	return s.endTask(ctx, t, func(t *Task) {
		t.Status = TaskFailed
		t.Error = &TaskError{Code: -32603, Message: cause}
	})
}

// UnfinishedTasks lists the tasks a runner should be running: what a local
// runner resumes after a restart.
func (s *Service) UnfinishedTasks(ctx context.Context) ([]Task, error) {
	tasks, err := s.store.UnfinishedTasks(ctx, s.now())
	if err != nil {
		return nil, s.storeFailure(err)
	}
	return tasks, nil
}

// TaskPollInterval is how often tasks suggest to poll them (REST says it in
// Retry-After).
func (s *Service) TaskPollInterval() time.Duration { return s.pollInterval }
