package board

import (
	"errors"
	"fmt"
	"testing"
)

// TestRetryableTaskError: a store failure (or any error that is not a
// domain error) is retried by both task runners; every domain refusal
// fails the task.
func TestRetryableTaskError(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{errors.New("dynamo: throttled"), true},
		{fmt.Errorf("reading a chunk: %w", errors.New("connection reset")), true},
		{Errorf(CodeInternal, "the store failed"), true},
		{workspaceNotFound("gone"), false},
		{Errorf(CodeForbidden, "the workspace refuses AI writes"), false},
		{Errorf(CodeInvalid, "a staged row is unreadable"), false},
		{Errorf(CodeConflict, "conflict"), false},
	} {
		if got := RetryableTaskError(c.err); got != c.want {
			t.Errorf("RetryableTaskError(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
