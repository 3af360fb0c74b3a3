package board

import (
	"context"
	"errors"

	"github.com/ticket-ledger/ticket-ledger/internal/obs"
)

// Observe notes what a use case answered in the request's record
// (internal/obs), for the request's log line and metrics: whether a write
// was replayed, the task it started or answered, and the error the caller
// was given with, for an internal one, its error id and the cause only the
// log shows. Adapters call it once per use case, at the boundary where the
// answer becomes a tool result or a REST response.
func Observe(ctx context.Context, out any, err error) {
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			obs.SetError(ctx, string(CodeInternal), "", err)
			return
		}
		obs.SetError(ctx, string(e.Code), e.ErrorID, e.cause)
		return
	}
	if r, ok := out.(interface{ WasReplayed() bool }); ok && r.WasReplayed() {
		obs.SetReplayed(ctx)
	}
	switch v := out.(type) {
	case ImportResult:
		obs.SetTaskID(ctx, v.TaskID)
	case TaskView:
		obs.SetTaskID(ctx, v.TaskID)
	case CancelTaskResult:
		obs.SetTaskID(ctx, v.Task.TaskID)
	}
}

// Cause is what made an internal error (a store's failure): for the
// operator's log only, never for the caller.
func (e *Error) Cause() error { return e.cause }
