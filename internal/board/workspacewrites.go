package board

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"unicode"

	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// Ledger tool names of the workspace writes: a request_id used for one of
// them and then for another write is refused like any reused id.
const (
	ToolCreateWorkspace = "create_workspace"
	ToolUpdateWorkspace = "update_workspace"
)

// EventWorkspaceCreated is the history entry of a new workspace.
const EventWorkspaceCreated = "workspace.created"

// MaxWorkspaceName bounds a workspace's display name.
const MaxWorkspaceName = 100

// CreateWorkspaceInput creates a workspace (people only).
type CreateWorkspaceInput struct {
	RequestID string   `json:"request_id" jsonschema:"idempotency key: a new unique id for each new workspace"`
	Slug      string   `json:"slug" jsonschema:"the new workspace's slug: lowercase letters, digits and -, at most 40, e.g. ops"`
	Name      string   `json:"name" jsonschema:"display name, one line, 1-100 characters"`
	AIPolicy  AIPolicy `json:"ai_policy,omitempty" jsonschema:"what AI may do there: read_write (default), read_only or hidden"`
}

// UpdateWorkspaceInput changes a workspace's settings (admins only).
// Absent fields stay as they are.
type UpdateWorkspaceInput struct {
	RequestID string    `json:"request_id" jsonschema:"idempotency key: a new unique id for each new change"`
	Workspace string    `json:"workspace" jsonschema:"workspace slug, e.g. inbox"`
	Name      *string   `json:"name,omitempty" jsonschema:"new display name, one line, 1-100 characters"`
	AIPolicy  *AIPolicy `json:"ai_policy,omitempty" jsonschema:"what AI may do there: read_write, read_only or hidden (admins only)"`
}

// WorkspaceResult answers a workspace write.
type WorkspaceResult struct {
	RequestID string    `json:"request_id"`
	Replayed  bool      `json:"replayed"`
	Workspace Workspace `json:"workspace"`
}

func (r *WorkspaceResult) markReplayed() { r.Replayed = true }

func validateWorkspaceName(name string) error {
	if err := validateText("name", name, 1, MaxWorkspaceName); err != nil {
		return err
	}
	if strings.TrimSpace(name) == "" || strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return invalid("name must be one line of visible text")
	}
	return nil
}

func validatePolicy(p AIPolicy) error {
	if slices.Contains([]AIPolicy{PolicyReadWrite, PolicyReadOnly, PolicyHidden}, p) {
		return nil
	}
	return invalid("ai_policy %q is not one of read_write, read_only, hidden", clip(string(p)))
}

// Validate checks the new workspace and fills the default policy.
func (in *CreateWorkspaceInput) Validate() error {
	if err := ValidateSlug(in.Slug); err != nil {
		return inField("slug", err)
	}
	if err := validateWorkspaceName(in.Name); err != nil {
		return inField("name", err)
	}
	if in.AIPolicy == "" {
		in.AIPolicy = PolicyReadWrite
	}
	return inField("ai_policy", validatePolicy(in.AIPolicy))
}

// Validate checks the change.
func (in *UpdateWorkspaceInput) Validate() error {
	if err := ValidateSlug(in.Workspace); err != nil {
		return err
	}
	if in.Name == nil && in.AIPolicy == nil {
		return invalid("nothing to change: give name or ai_policy")
	}
	if in.Name != nil {
		if err := validateWorkspaceName(*in.Name); err != nil {
			return inField("name", err)
		}
	}
	if in.AIPolicy != nil {
		return inField("ai_policy", validatePolicy(*in.AIPolicy))
	}
	return nil
}

// CreateWorkspace adds a workspace, exactly once per request_id. Any person
// may create one, with any initial ai_policy: a new workspace is empty, so
// no policy exposes anything to AI that it could not see before. Agents may
// not create workspaces.
func (s *Service) CreateWorkspace(ctx context.Context, in CreateWorkspaceInput) (WorkspaceResult, error) {
	p := PrincipalFrom(ctx)
	if p.IsAI() {
		return WorkspaceResult{}, Errorf(CodeForbidden, "only people create workspaces; ask a person to create it on the web board")
	}
	if err := in.Validate(); err != nil {
		return WorkspaceResult{}, err
	}
	rec, canonical, err := s.prepare(p, ToolCreateWorkspace, in.RequestID, in)
	if err != nil {
		return WorkspaceResult{}, err
	}
	w := Workspace{Slug: in.Slug, Name: in.Name, AIPolicy: in.AIPolicy, Counts: fullCounts(nil)}
	rec.Result, err = json.Marshal(WorkspaceResult{RequestID: in.RequestID, Workspace: w})
	if err != nil {
		return WorkspaceResult{}, s.storeFailure(err)
	}
	ev := Event{ID: s.newID(), Workspace: in.Slug, Type: EventWorkspaceCreated, Fields: []string{"name", "ai_policy"},
		Author: p.Author, OnBehalfOf: p.OnBehalfOf, Source: p.Source, RequestID: in.RequestID, At: rec.CreatedAt}
	stored, err := s.store.CreateWorkspace(ctx, WorkspaceTx{Request: rec, Workspace: w, Event: &ev})
	var exists *ledger.ExistsError
	switch {
	case errors.As(err, &exists):
		return replayAs[WorkspaceResult](ctx, s, exists.Record, ledgerCall{p: p, tool: ToolCreateWorkspace, canonical: canonical,
			fingerprint: rec.Fingerprint, workspace: in.Slug})
	case errors.Is(err, ErrExists):
		return WorkspaceResult{}, inField("slug", Errorf(CodeConflict, "workspace '%s' exists already; choose another slug", in.Slug))
	case err != nil:
		return WorkspaceResult{}, s.storeFailure(err)
	}
	return decodeResult[WorkspaceResult](s, stored.Result, false)
}

// UpdateWorkspace changes a workspace's name and ai_policy, exactly once per
// request_id. Admins only: a policy decides what every agent may see.
func (s *Service) UpdateWorkspace(ctx context.Context, in UpdateWorkspaceInput) (WorkspaceResult, error) {
	p := PrincipalFrom(ctx)
	if !p.IsAdmin() {
		return WorkspaceResult{}, onlyAdmins()
	}
	if err := in.Validate(); err != nil {
		return WorkspaceResult{}, err
	}
	rec, canonical, err := s.prepare(p, ToolUpdateWorkspace, in.RequestID, in)
	if err != nil {
		return WorkspaceResult{}, err
	}
	// A replay must not depend on the workspace still existing.
	if prev, err := s.store.GetRequest(ctx, rec.Key, s.now()); err == nil {
		return replayAs[WorkspaceResult](ctx, s, prev, ledgerCall{p: p, tool: ToolUpdateWorkspace, canonical: canonical,
			fingerprint: rec.Fingerprint, workspace: in.Workspace})
	} else if !errors.Is(err, ErrNotFound) {
		return WorkspaceResult{}, s.storeFailure(err)
	}
	w, err := s.visibleWorkspace(ctx, in.Workspace)
	if err != nil {
		return WorkspaceResult{}, err
	}
	var fields []string
	if in.Name != nil && *in.Name != w.Name {
		w.Name = *in.Name
		fields = append(fields, "name")
	}
	if in.AIPolicy != nil && *in.AIPolicy != w.AIPolicy {
		w.AIPolicy = *in.AIPolicy
		fields = append(fields, "ai_policy")
	}
	rec.CreatedAt = s.now()
	rec.ExpiresAt = rec.CreatedAt.Add(s.retention)
	rec.Result, err = json.Marshal(WorkspaceResult{RequestID: in.RequestID, Workspace: w})
	if err != nil {
		return WorkspaceResult{}, s.storeFailure(err)
	}
	tx := WorkspaceTx{Request: rec, Workspace: w}
	if len(fields) > 0 {
		tx.Event = &Event{ID: s.newID(), Workspace: w.Slug, Type: EventWorkspaceUpdated, Fields: fields,
			Author: p.Author, OnBehalfOf: p.OnBehalfOf, Source: p.Source, RequestID: in.RequestID, At: rec.CreatedAt}
	}
	stored, err := s.store.UpdateWorkspace(ctx, tx)
	var exists *ledger.ExistsError
	switch {
	case errors.As(err, &exists):
		return replayAs[WorkspaceResult](ctx, s, exists.Record, ledgerCall{p: p, tool: ToolUpdateWorkspace, canonical: canonical,
			fingerprint: rec.Fingerprint, workspace: in.Workspace})
	case errors.Is(err, ErrNotFound):
		return WorkspaceResult{}, workspaceNotFound(in.Workspace)
	case err != nil:
		return WorkspaceResult{}, s.storeFailure(err)
	}
	return decodeResult[WorkspaceResult](s, stored.Result, false)
}

func onlyAdmins() error {
	return Errorf(CodeForbidden, "only admins change workspace settings and ai_policy; ask an admin")
}
