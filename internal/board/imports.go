package board

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// ToolImportTickets is the ledger and task tool name of imports.
const ToolImportTickets = "import_tickets"

// MaxImportRows bounds one import.
const MaxImportRows = 10000

// DefaultInlineImportRows is how many rows an import may have to finish
// inside the call that starts it; larger ones answer "working" at once and
// continue in the background.
const DefaultInlineImportRows = 100

// DefaultTaskPollInterval is what a task suggests as polling interval.
const DefaultTaskPollInterval = 2 * time.Second

// claimLease bounds how long a started import may take to create its task:
// a retry that finds the key claimed but no task after this takes it over.
const claimLease = time.Minute

// NewTicket is the fields of a new ticket: one row of an import, and what
// CreateTicketInput embeds, so both tools describe them with one text.
type NewTicket struct {
	Title    string   `json:"title" jsonschema:"one-line title, 1-200 characters"`
	Body     string   `json:"body,omitempty" jsonschema:"Markdown description, up to 20000 characters"`
	Priority Priority `json:"priority,omitempty" jsonschema:"low, normal (default), high or urgent"`
	Owner    string   `json:"owner,omitempty" jsonschema:"who works on it: human, human:<handle> or ai:<name>; omit for nobody"`
	Due      string   `json:"due,omitempty" jsonschema:"due date YYYY-MM-DD"`
	Tags     []string `json:"tags,omitempty" jsonschema:"up to 20 tags, each 1-32 of a-z 0-9 . _ -"`
	Links    []Link   `json:"links,omitempty" jsonschema:"up to 20 links"`
}

// ImportTicketsInput creates many tickets in one workspace as one task.
type ImportTicketsInput struct {
	RequestID string      `json:"request_id" jsonschema:"idempotency key: a new unique id for each new import; after an error or lost connection call find_request, then retry with the same id and the same arguments"`
	Workspace string      `json:"workspace" jsonschema:"workspace slug, e.g. inbox (call list_workspaces to see them)"`
	Tickets   []ImportRow `json:"tickets" jsonschema:"the tickets to create, 1-10000, in this order; each starts in status candidate. Rows may name each other by key (parent, blocked_by) to write a whole plan at once"`
}

// Validate checks every row (nothing is written when one is wrong) and
// fills defaults.
func (in *ImportTicketsInput) Validate() error {
	if err := ValidateSlug(in.Workspace); err != nil {
		return err
	}
	if len(in.Tickets) == 0 {
		return invalid("tickets is empty; pass 1 to %d tickets", MaxImportRows)
	}
	if len(in.Tickets) > MaxImportRows {
		return invalid("%d tickets given; one import takes at most %d: split the list and use a new request_id for each part", len(in.Tickets), MaxImportRows)
	}
	for i := range in.Tickets {
		// A row is checked as the create_ticket call it stands for.
		row := CreateTicketInput{Workspace: in.Workspace, NewTicket: in.Tickets[i].NewTicket}
		if err := row.Validate(); err != nil {
			return invalid("tickets[%d]: %s; nothing was imported: fix that row and call again", i, err.Error())
		}
		in.Tickets[i].NewTicket = row.NewTicket // with its defaults filled
	}
	return in.validatePlan()
}

// ImportResult answers import_tickets, and is the result an import's
// request record keeps once the task ends.
type ImportResult struct {
	RequestID     string            `json:"request_id"`
	Replayed      bool              `json:"replayed"`
	TaskID        string            `json:"task_id" jsonschema:"follow it with get_task (or find_request with this request_id)"`
	Workspace     string            `json:"workspace"`
	Status        TaskStatus        `json:"status" jsonschema:"working, completed, failed or cancelled"`
	StatusMessage string            `json:"status_message"`
	Progress      Progress          `json:"progress" jsonschema:"rows handled (done) of all rows (total)"`
	Imported      int               `json:"imported" jsonschema:"tickets this import created"`
	Keys          map[string]string `json:"keys,omitempty" jsonschema:"the ticket id each row key became, once the import completed"`
}

func (r *ImportResult) markReplayed() { r.Replayed = true }

func importResult(t Task) ImportResult {
	return ImportResult{RequestID: t.Request.RequestID, TaskID: t.ID, Workspace: t.Workspace, Status: t.Status,
		StatusMessage: t.Message, Progress: t.Progress, Imported: t.Imported, Keys: t.Keys}
}

// TaskRunner continues tasks outside the call that created them: a Step
// Functions execution on AWS, a goroutine locally. Both drive RunImport.
type TaskRunner interface {
	// Reference names the execution that Start will start for t, stored
	// with the task before it starts (empty when the runner has none).
	Reference(t Task) string
	// Start makes sure t is being run. Starting a task that is already
	// running is a no-op.
	Start(ctx context.Context, t Task) error
	// Stop asks the run of t to stop; the task itself is already marked.
	Stop(ctx context.Context, t Task) error
}

// ImportTickets stages the rows as a task and runs it: small imports finish
// inside the call, larger ones continue on the task runner and answer
// "working" with the task id. The request_id holds one task: a retry, even
// while the task runs, answers that task and never starts a second one.
func (s *Service) ImportTickets(ctx context.Context, in ImportTicketsInput) (ImportResult, error) {
	if err := in.Validate(); err != nil {
		return ImportResult{}, err
	}
	p := PrincipalFrom(ctx)
	rec, canonical, err := s.prepare(p, ToolImportTickets, in.RequestID, in)
	if err != nil {
		return ImportResult{}, err
	}
	// Policy before anything is written; the chunks check it again at commit.
	if err := s.importAllowed(ctx, p, in.Workspace); err != nil {
		return ImportResult{}, err
	}
	// Existing tickets the rows name, judged before anything is written.
	if err := s.checkPlanTargets(ctx, p, in); err != nil {
		return ImportResult{}, err
	}
	for attempt := 0; attempt < maxAttempts; attempt++ {
		now := s.now()
		existing, err := s.store.GetRequest(ctx, rec.Key, now)
		switch {
		case err == nil:
			lc := ledgerCall{p: p, tool: ToolImportTickets, canonical: canonical, fingerprint: rec.Fingerprint, workspace: in.Workspace}
			res, done, err := s.answerExisting(ctx, existing, lc)
			if done || err != nil {
				return res, err
			}
			// Abandoned before its task existed: take it over.
		case !errors.Is(err, ErrNotFound):
			return ImportResult{}, s.storeFailure(err)
		}
		task, err := s.startImport(ctx, p, rec, in, now)
		var exists *ledger.ExistsError
		if errors.As(err, &exists) {
			continue // another call claimed the key meanwhile: answer as it
		}
		if err != nil {
			return ImportResult{}, err
		}
		return s.runOrHandOver(ctx, task)
	}
	return ImportResult{}, Errorf(CodeInProgress, "request_id %q is contended by other calls; retry later with the same request_id, or call find_request", in.RequestID)
}

func (s *Service) importAllowed(ctx context.Context, p Principal, slug string) error {
	w, err := s.store.GetWorkspace(ctx, slug)
	if errors.Is(err, ErrNotFound) {
		return workspaceNotFound(slug)
	}
	if err != nil {
		return s.storeFailure(err)
	}
	return writeDenied(p, slug, w.AIPolicy)
}

// answerExisting answers a call whose request_id already has a record.
// done is false when the record is an abandoned claim that never got its
// task, which the caller may take over.
func (s *Service) answerExisting(ctx context.Context, existing ledger.Record, lc ledgerCall) (ImportResult, bool, error) {
	verdict := ledger.Judge(existing, ToolImportTickets, lc.fingerprint, s.now())
	if verdict == ledger.Replay || verdict == ledger.Mismatch {
		res, err := replayAs[ImportResult](ctx, s, existing, lc)
		return res, true, err
	}
	// A running import of a workspace since hidden is as absent as it.
	if hidden, err := s.hiddenRecord(ctx, lc.p, existing, "", ""); err != nil || hidden {
		if err != nil {
			return ImportResult{}, true, s.storeFailure(err)
		}
		return ImportResult{}, true, asIfAbsent(lc, existing)
	}
	// Running: the placeholder result names the task.
	var placeholder ImportResult
	if err := json.Unmarshal(existing.Result, &placeholder); err != nil || placeholder.TaskID == "" {
		return ImportResult{}, true, Errorf(CodeInternal, "request_id %q has a running record without its task; call find_request later", existing.Key.RequestID)
	}
	var task Task
	var err error
	if verdict == ledger.Abandoned {
		task, err = s.store.GetTask(ctx, placeholder.TaskID, s.now())
	} else {
		task, err = s.awaitStartedTask(ctx, placeholder.TaskID)
	}
	switch {
	case errors.Is(err, ErrNotFound) && verdict == ledger.Abandoned:
		return ImportResult{}, false, nil
	case errors.Is(err, ErrNotFound):
		return ImportResult{}, true, Errorf(CodeInProgress, "request_id %q is still being started; retry in a few seconds with the same request_id, or call find_request", existing.Key.RequestID)
	case err != nil:
		return ImportResult{}, true, s.storeFailure(err)
	}
	if task.Status.Terminal() {
		s.settleRequest(ctx, task)
	} else if err := s.ensureRunning(ctx, task); err != nil {
		return ImportResult{}, true, err
	}
	res := importResult(task)
	res.Replayed = true
	return res, true, nil
}

// startImport claims the request key with a lease owned by the new task,
// then commits the task with its staged rows.
func (s *Service) startImport(ctx context.Context, p Principal, rec ledger.Record, in ImportTicketsInput, now time.Time) (Task, error) {
	task := Task{
		ID:           uuid.New().String(), // 122 random bits: unguessable
		Tool:         ToolImportTickets,
		Request:      rec.Key,
		Author:       p.Author,
		OnBehalfOf:   p.OnBehalfOf,
		Credential:   p.Credential,
		Workspace:    in.Workspace,
		Status:       TaskWorking,
		Progress:     Progress{Total: len(in.Tickets)},
		CreatedAt:    now,
		UpdatedAt:    now,
		ExpiresAt:    now.Add(s.retention),
		PollInterval: s.pollInterval,
		Plan:         in.hasPlan(),
	}
	task.Message = progressMessage(task)
	if s.runner != nil {
		task.Execution = s.runner.Reference(task)
	}
	placeholder, err := json.Marshal(importResult(task))
	if err != nil {
		return Task{}, s.storeFailure(err)
	}
	claim := rec
	claim.CreatedAt, claim.ExpiresAt = now, now.Add(s.retention)
	claim.Status, claim.Owner, claim.LeaseUntil, claim.Result = ledger.StatusRunning, task.ID, now.Add(claimLease), placeholder
	if err := s.store.ClaimRequest(ctx, claim, now); err != nil {
		var exists *ledger.ExistsError
		if errors.As(err, &exists) {
			return Task{}, err
		}
		return Task{}, s.storeFailure(err)
	}
	rows := make([]json.RawMessage, len(in.Tickets))
	for i, t := range in.Tickets {
		b, err := json.Marshal(t)
		if err != nil {
			return Task{}, s.storeFailure(err)
		}
		rows[i] = b
	}
	if err := s.store.CreateTask(ctx, task, rows); err != nil {
		// Free the key so a retry can start again; if this fails too, the
		// lease runs out and a retry takes the key over.
		if rerr := s.store.ReleaseRequest(context.WithoutCancel(ctx), rec.Key, task.ID); rerr != nil {
			s.log.Warn("releasing an import's request record after its task could not be created", "err", rerr)
		}
		return Task{}, s.storeFailure(err)
	}
	return task, nil
}

// runOrHandOver finishes a small import inside the call; a large one (or a
// small one that could not finish here) goes to the runner.
func (s *Service) runOrHandOver(ctx context.Context, task Task) (ImportResult, error) {
	if s.runner == nil || task.Progress.Total <= s.inlineRows {
		// The call may be cancelled: the rows it commits stand, and
		// whatever is left goes to the runner below.
		run, err := s.RunImport(context.WithoutCancel(ctx), task.ID, 0)
		if err == nil && run.Status.Terminal() {
			return importResult(run), nil
		}
		if s.runner == nil {
			if err != nil {
				return ImportResult{}, err
			}
			return importResult(run), nil
		}
		if err != nil {
			s.log.Warn("an inline import stopped; its runner continues it", "task", task.ID, "err", err)
		}
	}
	if err := s.ensureRunning(ctx, task); err != nil {
		return ImportResult{}, err
	}
	current, err := s.store.GetTask(ctx, task.ID, s.now())
	if err != nil {
		return importResult(task), nil // the task is durable; its start state answers
	}
	return importResult(current), nil
}

// ensureRunning hands a task to the runner (idempotently).
func (s *Service) ensureRunning(ctx context.Context, task Task) error {
	if s.runner == nil {
		return nil
	}
	if err := s.runner.Start(ctx, task); err != nil {
		s.log.Error("starting a task's runner failed", "task", task.ID, "err", err)
		return Errorf(CodeInternal, "import task %s is stored but could not be started (%v); retry with the same request_id to start it again, nothing is imported twice", task.ID, err)
	}
	return nil
}

// progressMessage says how far a task got, in words a model can repeat.
func progressMessage(t Task) string {
	switch t.Status {
	case TaskCompleted:
		return fmt.Sprintf("imported %d of %d rows into %s", t.Imported, t.Progress.Total, t.Workspace) + alreadyImported(t)
	case TaskCancelled:
		if t.StopReason != "" {
			return fmt.Sprintf("cancelled after %d of %d rows: %s; the %d tickets imported before stay in %s", t.Progress.Done, t.Progress.Total, t.StopReason, t.Imported, t.Workspace)
		}
		return fmt.Sprintf("cancelled after %d of %d rows; the %d tickets imported before the cancellation stay in %s", t.Progress.Done, t.Progress.Total, t.Imported, t.Workspace)
	case TaskFailed:
		msg := ""
		if t.Error != nil {
			msg = ": " + t.Error.Message
		}
		return fmt.Sprintf("failed after %d of %d rows%s; the %d tickets imported before the failure stay in %s", t.Progress.Done, t.Progress.Total, msg, t.Imported, t.Workspace)
	}
	return fmt.Sprintf("importing: %d of %d rows done", t.Progress.Done, t.Progress.Total)
}

func alreadyImported(t Task) string {
	if skipped := t.Progress.Done - t.Imported; skipped > 0 {
		return fmt.Sprintf(" (%d rows had been imported by an earlier run of the same request and were not imported again)", skipped)
	}
	return ""
}
