package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/ticket-ledger/ticket-ledger/internal/obs"
	"github.com/ticket-ledger/ticket-ledger/internal/sfn"
)

// observed wraps the worker's handler with one log line per invocation
// (task, action, rows imported, store requests, status, latency) and the
// task metrics (rows imported; a failure when the state machine marks the
// task failed), as the MCP function does per request (docs/operations.md).
func observed(w *sfn.Worker, log *slog.Logger, metrics *obs.Metrics) func(context.Context, sfn.Event) (sfn.Output, error) {
	return func(ctx context.Context, ev sfn.Event) (sfn.Output, error) {
		id := ""
		if lc, ok := lambdacontext.FromContext(ctx); ok {
			id = lc.AwsRequestID
		}
		rec := obs.NewRequest(id)
		start := time.Now()
		out, err := w.Handle(obs.NewContext(ctx, rec), ev)
		action := ev.Action
		if action == "" {
			action = "run"
		}
		failed := action == "fail" && err == nil
		attrs := []slog.Attr{
			slog.String("request_id", id),
			slog.String("task_id", ev.TaskID),
			slog.String("action", action),
			slog.Int64("rows_imported", rec.RowsImported()),
			slog.Int64("store_requests", rec.StoreRequests()),
			slog.String("task_status", out.Status),
			slog.Float64("latency_ms", float64(time.Since(start).Microseconds())/1000),
		}
		level := slog.LevelInfo
		if err != nil {
			level = slog.LevelError
			attrs = append(attrs, slog.String("error", err.Error()))
		}
		log.LogAttrs(ctx, level, "task invocation", attrs...)
		metrics.EmitTask(ev.TaskID, int(rec.RowsImported()), failed)
		return out, err
	}
}
