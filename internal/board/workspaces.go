package board

import (
	"context"
	"errors"
	"slices"
)

// DefaultWorkspaces seed a fresh store.
func DefaultWorkspaces() []Workspace {
	return []Workspace{
		{Slug: "inbox", Name: "Inbox", AIPolicy: PolicyReadWrite},
		{Slug: "reference", Name: "Reference", AIPolicy: PolicyReadOnly},
		{Slug: "private", Name: "Private", AIPolicy: PolicyHidden},
	}
}

// SetWorkspacePolicyInput changes who of the AI may see or write a workspace.
type SetWorkspacePolicyInput struct {
	Workspace string   `json:"workspace"`
	AIPolicy  AIPolicy `json:"ai_policy"`
}

// SetWorkspacePolicy is for admins only (web board, admin REST): an AI
// principal cannot widen its own access, and a policy decides what every
// agent may see. It writes no request record; UpdateWorkspace does.
func (s *Service) SetWorkspacePolicy(ctx context.Context, in SetWorkspacePolicyInput) (Workspace, error) {
	p := PrincipalFrom(ctx)
	if p.IsAI() {
		return Workspace{}, Errorf(CodeForbidden, "only people change a workspace's ai_policy; ask a person to do it on the web board")
	}
	if !p.IsAdmin() {
		return Workspace{}, onlyAdmins()
	}
	if err := ValidateSlug(in.Workspace); err != nil {
		return Workspace{}, err
	}
	if !slices.Contains([]AIPolicy{PolicyReadWrite, PolicyReadOnly, PolicyHidden}, in.AIPolicy) {
		return Workspace{}, invalid("ai_policy %q is not one of read_write, read_only, hidden", clip(string(in.AIPolicy)))
	}
	ev := Event{ID: s.newID(), Workspace: in.Workspace, Type: EventWorkspaceUpdated, Fields: []string{"ai_policy"},
		Author: p.Author, OnBehalfOf: p.OnBehalfOf, Source: p.Source, At: s.now()}
	err := s.store.SetWorkspacePolicy(ctx, in.Workspace, in.AIPolicy, ev)
	if errors.Is(err, ErrNotFound) {
		return Workspace{}, workspaceNotFound(in.Workspace)
	}
	if err != nil {
		return Workspace{}, s.storeFailure(err)
	}
	return s.visibleWorkspace(ctx, in.Workspace)
}
