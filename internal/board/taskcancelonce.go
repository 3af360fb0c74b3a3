package board

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/google/uuid"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// ToolCancelTask is the ledger tool name of a cancellation made under a
// request_id (REST's POST /tasks/{id}/cancel with its Idempotency-Key).
const ToolCancelTask = "cancel_task"

// CancelTaskOnceInput is a cancellation under a request_id: the key of
// the ledger, the same namespace as every other write's.
type CancelTaskOnceInput struct {
	RequestID string `json:"request_id" jsonschema:"idempotency key: a new unique id for each new cancellation; the same id to retry it"`
	TaskID    string `json:"task_id" jsonschema:"the task_id that import_tickets (or find_request) returned"`
}

// CancelTaskResult answers a cancellation under a request_id; it is what
// the request record keeps and replays.
type CancelTaskResult struct {
	RequestID string   `json:"request_id"`
	Replayed  bool     `json:"replayed"`
	Task      TaskView `json:"task" jsonschema:"the task as the cancellation left it: cancelled, or how it ended if it ended first"`
}

func (r *CancelTaskResult) markReplayed() { r.Replayed = true }

// CancelTaskOnce is CancelTask under a request_id, for surfaces whose
// every write carries one (REST). Cancelling is idempotent by itself; the
// record adds what every keyed write promises: a retry with the same key
// replays the first answer (the task as the cancellation left it, which no
// longer changes), the key reused for another task or another call is
// refused naming the field, and find_request knows the key. A task the
// caller may not see is refused like any absent one, and writes nothing.
//
// The cancellation and its record cannot share one transaction (the task
// and the record are separate items), so the key is claimed with a lease
// first, as imports do: a call that dies between the two leaves a claim
// whose lease runs out, and a retry takes it over and cancels again, which
// changes nothing twice.
func (s *Service) CancelTaskOnce(ctx context.Context, in CancelTaskOnceInput) (CancelTaskResult, error) {
	p := PrincipalFrom(ctx)
	rec, canonical, err := s.prepare(p, ToolCancelTask, in.RequestID, in)
	if err != nil {
		return CancelTaskResult{}, err
	}
	lc := ledgerCall{p: p, tool: ToolCancelTask, canonical: canonical, fingerprint: rec.Fingerprint}
	for attempt := 0; attempt < maxAttempts; attempt++ {
		now := s.now()
		existing, err := s.store.GetRequest(ctx, rec.Key, now)
		switch {
		case err == nil:
			res, done, err := s.answerCancelRecord(ctx, existing, lc, in.TaskID)
			if done || err != nil {
				return res, err
			}
			// An abandoned claim of this same cancellation: take it over.
		case !errors.Is(err, ErrNotFound):
			return CancelTaskResult{}, s.storeFailure(err)
		}
		task, err := s.visibleTask(ctx, in.TaskID)
		if err != nil {
			return CancelTaskResult{}, err
		}
		owner := uuid.New().String()
		// The claim names the task (and so its workspace), so find_request
		// and the hidden-workspace rules can read it while it runs.
		placeholder, err := json.Marshal(CancelTaskResult{RequestID: in.RequestID, Task: task.View()})
		if err != nil {
			return CancelTaskResult{}, s.storeFailure(err)
		}
		claim := rec
		claim.CreatedAt, claim.ExpiresAt = now, now.Add(s.retention)
		claim.Status, claim.Owner, claim.LeaseUntil, claim.Result = ledger.StatusRunning, owner, now.Add(claimLease), placeholder
		if err := s.store.ClaimRequest(ctx, claim, now); err != nil {
			var exists *ledger.ExistsError
			if errors.As(err, &exists) {
				continue // another call claimed the key meanwhile: answer as it
			}
			return CancelTaskResult{}, s.storeFailure(err)
		}
		// Claimed: finish even if the caller stops waiting, so the record
		// says what was done.
		work := context.WithoutCancel(ctx)
		view, err := s.CancelTask(work, TaskIDInput{TaskID: in.TaskID})
		if err != nil {
			if rerr := s.store.ReleaseRequest(work, rec.Key, owner); rerr != nil {
				s.log.Warn("releasing a cancellation's request record after it failed", "err", rerr)
			}
			return CancelTaskResult{}, err
		}
		res := CancelTaskResult{RequestID: in.RequestID, Task: view}
		raw, err := json.Marshal(res)
		if err == nil {
			err = s.store.CompleteRequest(work, rec.Key, owner, raw)
		}
		if err != nil {
			// The task is cancelled; the record is not done, so this is
			// not reported as success. A retry with the same key finds the
			// task ended and records it.
			return CancelTaskResult{}, s.storeFailure(err)
		}
		return res, nil
	}
	return CancelTaskResult{}, Errorf(CodeInProgress, "request_id %q is contended by other calls; retry later with the same request_id, or call find_request", in.RequestID)
}

// answerCancelRecord answers a cancellation whose request_id already has a
// record. done is false for an abandoned claim of the same cancellation,
// which the caller takes over.
func (s *Service) answerCancelRecord(ctx context.Context, existing ledger.Record, lc ledgerCall, taskID string) (CancelTaskResult, bool, error) {
	hidden, err := s.hiddenRecord(ctx, lc.p, existing, "", "")
	if err != nil {
		return CancelTaskResult{}, true, s.storeFailure(err)
	}
	if hidden {
		if existing.Tool == ToolCancelTask && existing.Fingerprint == lc.fingerprint {
			return CancelTaskResult{}, true, TaskNotFound(taskID) // what a fresh call gets
		}
		return CancelTaskResult{}, true, asIfAbsent(lc, existing)
	}
	if ledger.Judge(existing, ToolCancelTask, lc.fingerprint, s.now()) == ledger.Abandoned {
		return CancelTaskResult{}, false, nil
	}
	raw, err := s.verdict(existing, lc)
	if err != nil {
		return CancelTaskResult{}, true, err
	}
	res, err := decodeResult[CancelTaskResult](s, raw, true)
	return res, true, err
}
