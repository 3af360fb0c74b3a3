package board

import "context"

// PolicyReader is the part of Store that answers a workspace's ai_policy on
// its own, for what the service shows from a stored request record
// (find_request, a replay, a reused request_id): that content belongs to a
// workspace, and a workspace hidden since must not show through it.
type PolicyReader interface {
	// WorkspacePolicy returns the workspace's ai_policy, or ErrNotFound. It
	// may be as stale as the policy other reads use (DynamoDB: the
	// process's copy, up to PolicyTTL).
	WorkspacePolicy(ctx context.Context, slug string) (AIPolicy, error)
}
