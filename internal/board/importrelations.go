package board

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// relatePlan writes the relations of a plan import once all its rows are
// imported, and answers the ticket each key became. Each relation is a
// relate_tickets write under a ledger key derived from the import's
// request and the row ("<request_id>#<row>.parent", ".blocked_by.<n>"), so
// a run that stops halfway and runs again replays what was written and
// writes only the rest.
func (s *Service) relatePlan(ctx context.Context, task Task) (map[string]string, error) {
	rows := make([]ImportRow, 0, task.Progress.Total)
	for len(rows) < task.Progress.Total {
		raws, err := s.store.StagedRows(ctx, task.ID, len(rows), readRows)
		if err != nil {
			return nil, s.storeFailure(err)
		}
		if len(raws) == 0 {
			return nil, Errorf(CodeInvalid, "task %s has no staged row %d of %d", task.ID, len(rows), task.Progress.Total)
		}
		for _, raw := range raws {
			var r ImportRow
			if err := json.Unmarshal(raw, &r); err != nil {
				return nil, Errorf(CodeInvalid, "staged row %d of task %s cannot be read: %v", len(rows), task.ID, err)
			}
			rows = append(rows, r)
		}
	}
	in := ImportTicketsInput{Workspace: task.Workspace, Tickets: rows}
	g, err := in.planGraph()
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(rows))
	ticketOf := func(i int) (string, error) {
		if ids[i] != "" {
			return ids[i], nil
		}
		rec, err := s.store.GetRequest(ctx, RowKey(task.Request, i), s.now())
		if err != nil {
			return "", s.storeFailure(err)
		}
		var row ImportedRow
		if err := json.Unmarshal(rec.Result, &row); err != nil || row.TicketID == "" {
			return "", Errorf(CodeInternal, "row %d of task %s has no ticket recorded", i, task.ID)
		}
		ids[i] = row.TicketID
		return row.TicketID, nil
	}
	idOf := func(ref planRef) (string, error) {
		if ref.row < 0 {
			return ref.id, nil
		}
		return ticketOf(ref.row)
	}
	p := Principal{Author: task.Author, OnBehalfOf: task.OnBehalfOf, Source: SourceTask}
	relate := func(i int, suffix string, kind RelationKind, ref planRef) error {
		from, err := idOf(ref)
		if err != nil {
			return err
		}
		to, err := ticketOf(i)
		if err != nil {
			return err
		}
		key := RowKey(task.Request, i)
		key.RequestID += suffix
		rin := RelateInput{RequestID: key.RequestID, ID: from, Kind: kind, Other: to}
		canonical, err := ledger.CanonicalArgs(rin)
		if err != nil {
			return s.storeFailure(err)
		}
		rec := ledger.NewRecord(key, ToolRelateTickets, canonical, s.now(), s.retention)
		if _, err := s.writeRelation(ctx, p, ToolRelateTickets, rin, true, rec, canonical); err != nil {
			return fmt.Errorf("tickets[%d] (%s): %w", i, to, err)
		}
		return nil
	}
	for i := range rows {
		if nearDeadline(ctx) {
			return nil, errPlanPaused
		}
		if ref := g.parent[i]; ref != nil {
			if err := relate(i, ".parent", RelationParent, *ref); err != nil {
				return nil, err
			}
		}
		for j, ref := range g.blockedBy[i] {
			if err := relate(i, fmt.Sprintf(".blocked_by.%d", j), RelationBlocks, ref); err != nil {
				return nil, err
			}
		}
	}
	keys := map[string]string{}
	for i, r := range rows {
		if r.Key != "" {
			id, err := ticketOf(i)
			if err != nil {
				return nil, err
			}
			keys[r.Key] = id
		}
	}
	return keys, nil
}

// errPlanPaused stops a run's relations before its context ends.
var errPlanPaused = errors.New("the run's time is nearly up")

// finishPlan relates a plan import's rows and completes it; a relation
// the rules refuse now (an existing ticket changed since the import was
// judged) fails the task with the reason, its tickets staying imported.
func (s *Service) finishPlan(ctx context.Context, task Task) (Task, error) {
	keys, err := s.relatePlan(ctx, task)
	if errors.Is(err, errPlanPaused) {
		return task, nil // the next run replays what is written and goes on
	}
	if err != nil {
		if RetryableTaskError(err) {
			return task, err
		}
		return s.endTask(ctx, task, func(t *Task) {
			t.Status = TaskFailed
			t.Error = &TaskError{Code: -32603, Message: "relating the imported tickets: " + err.Error()}
		})
	}
	return s.endTask(ctx, task, func(t *Task) { t.Status = TaskCompleted; t.Keys = keys })
}
