package board

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// A stored request record holds content of a workspace: the ticket or note
// its result carries, the arguments a reused request_id is compared with.
// If that workspace has since become hidden from the caller, everything
// that would show the record answers as if the workspace did not exist
// (docs/decisions.md, "Hidden after the fact"): find_request says unknown,
// a retry gets the "not found" a fresh call would get, and a reused
// request_id names no fields.

// ledgerCall is a write as the ledger judges it against a stored record.
type ledgerCall struct {
	p           Principal
	tool        string
	canonical   []byte
	fingerprint string
	workspace   string // the workspace the call names, or its ticket's
	ticketID    string // the ticket it names; "" for a create
	// known is the call's workspace policy when the call already read it
	// (LoadForWrite): no second read for the usual replay.
	known AIPolicy
}

// recordWorkspace names the workspace a record's content belongs to: a
// create's workspace argument, the workspace of the ticket an update, move
// or note names, or that of the task a cancellation names.
func recordWorkspace(rec ledger.Record) (string, bool) {
	var args struct {
		Workspace string `json:"workspace"`
		ID        string `json:"id"`
	}
	if json.Unmarshal(rec.Args, &args) != nil {
		return "", false
	}
	if args.Workspace != "" {
		return args.Workspace, true
	}
	if slug, _, err := ParseTicketID(args.ID); err == nil {
		return slug, true
	}
	// A cancellation names a task; its result (the claim's too) holds the
	// task with its workspace.
	if rec.Tool == ToolCancelTask {
		var res CancelTaskResult
		if json.Unmarshal(rec.Result, &res) == nil && res.Task.Workspace != "" {
			return res.Task.Workspace, true
		}
	}
	return "", false
}

// hiddenRecord reports whether rec's workspace is hidden from p now (or
// gone). known, when not empty, is the policy of the workspace named
// knownSlug as the caller already read it.
func (s *Service) hiddenRecord(ctx context.Context, p Principal, rec ledger.Record, knownSlug string, known AIPolicy) (bool, error) {
	if !p.IsAI() {
		return false, nil // people see every workspace
	}
	slug, ok := recordWorkspace(rec)
	if !ok {
		return false, nil
	}
	policy := known
	if slug != knownSlug || known == "" {
		var err error
		policy, err = s.store.WorkspacePolicy(ctx, slug)
		if errors.Is(err, ErrNotFound) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
	}
	return !readable(p, policy), nil
}

// asIfAbsent is the answer to a call whose request_id holds a record of a
// workspace now hidden from the caller: the "not found" the call itself
// gets when it names that workspace (or a ticket in it), otherwise a
// refusal of the request_id that tells nothing about the record.
func asIfAbsent(c ledgerCall, existing ledger.Record) error {
	if slug, ok := recordWorkspace(existing); ok && slug == c.workspace {
		if c.ticketID != "" {
			return ticketNotFound(c.ticketID)
		}
		return workspaceNotFound(c.workspace)
	}
	return Errorf(CodeRequestReused, "request_id %q cannot be used for this call; nothing was written. Use a new request_id for a new intent", existing.Key.RequestID)
}

// judge answers a write that found an unexpired record under its key.
func (s *Service) judge(ctx context.Context, existing ledger.Record, c ledgerCall) ([]byte, error) {
	hidden, err := s.hiddenRecord(ctx, c.p, existing, c.workspace, c.known)
	if err != nil {
		return nil, s.storeFailure(err)
	}
	if hidden {
		return nil, asIfAbsent(c, existing)
	}
	return s.verdict(existing, c)
}

// verdict answers a write whose record's workspace the caller may see: the
// stored result for a replay, else why the call cannot run.
func (s *Service) verdict(existing ledger.Record, c ledgerCall) ([]byte, error) {
	switch ledger.Judge(existing, c.tool, c.fingerprint, s.now()) {
	case ledger.Replay:
		return existing.Result, nil
	case ledger.Mismatch:
		return nil, Errorf(CodeRequestReused, "%s", ledger.MismatchMessage(existing, c.tool, c.canonical))
	case ledger.Abandoned:
		return nil, Errorf(CodeConflict, "request_id %q belongs to an earlier call that stopped before finishing; call find_request to see what it did, then retry with the same request_id", existing.Key.RequestID)
	default:
		return nil, Errorf(CodeInProgress, "request_id %q is still in progress; retry later with the same request_id, or call find_request", existing.Key.RequestID)
	}
}
